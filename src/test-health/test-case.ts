// A test as test health knows it (docs/test-health.md#test-identity): who it is, and the health classification and quarantine give it
// (docs/test-health.md#classification, #quarantine).
import type { HealthStatus, QuarantineSetting } from "./classification.ts";

export interface TestCaseIdentity {
  /** The UUIDv5 a client can compute (docs/test-health.md#test-identity). */
  id: string;
  repositoryId: string;
  name: string;
  classname: string;
  parent: string;
  filePath: string;
  variant: string;
}

export interface TestCaseHealth {
  status: HealthStatus;
  statusReason: string;
  statusChangedAt: number;
  quarantineSetting: QuarantineSetting;
  quarantined: boolean;
  /** When it last became quarantined; kept after it is released. */
  quarantinedAt: number | null;
  /** Healthy without any failure in the window when last classified (see TestCasesTable.settled). */
  settled: boolean;
}

export interface TestCase extends TestCaseIdentity, TestCaseHealth {
  /** The database's integer key, which results refer to. */
  key: number;
  firstSeenAt: number;
}
