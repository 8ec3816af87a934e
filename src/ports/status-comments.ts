// The comment the app keeps on each submitted PR, edited as the PR moves through the queue: its id per
// submission. src/store/pull-request-comments.ts implements it.

export interface StatusComments {
  findCommentId(submissionId: string): Promise<number | undefined>;
  rememberComment(comment: { submissionId: string; queueId: string; commentId: number }): Promise<void>;
}
