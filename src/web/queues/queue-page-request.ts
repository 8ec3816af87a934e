import type { Repository } from "../../ports/test-case-storage.ts";
import type { Visitor } from "../page-context.ts";

/** A page request its visitor may see: who asks, the repository and queue it names, and the way to the root. */
export interface QueuePageRequest {
  visitor: Visitor;
  repository: Repository;
  branch: string | null;
  /** Leads from the page up to the service's root, for links relative to it. */
  root: string;
}
