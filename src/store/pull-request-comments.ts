import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

export async function findCommentId(db: Kysely<Database>, submissionId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom("pull_request_comments")
    .select("comment_id")
    .where("submission_id", "=", submissionId)
    .executeTakeFirst();
  return row?.comment_id;
}

export async function rememberComment(
  db: Kysely<Database>,
  comment: { submissionId: string; queueId: string; commentId: number },
): Promise<void> {
  await db
    .insertInto("pull_request_comments")
    .values({ submission_id: comment.submissionId, queue_id: comment.queueId, comment_id: comment.commentId })
    .onConflict((oc) => oc.column("submission_id").doUpdateSet({ comment_id: comment.commentId }))
    .execute();
}
