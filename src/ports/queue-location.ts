// The address of a queue that every port call about it carries.

/** Where a queue lives on GitHub: what every command and webhook needs to address it. */
export interface QueueLocation {
  queueId: string;
  repositoryId: string;
  host: string;
  owner: string;
  name: string;
  installationId: number | null;
  targetBranch: string;
}
