// Opaque cursors of listPullRequests: the position of the last row seen, bound to its queue. A cursor that
// does not decode, or belongs to another queue, is `400 invalid_page_token`.
import { Problem } from "../http/problem.ts";

interface Position {
  submittedAt: number;
  id: string;
}

export function encodeCursor(position: Position, queueId: string): string {
  return Buffer.from(JSON.stringify([queueId, position.submittedAt, position.id])).toString("base64url");
}

export function decodeCursor(cursor: string, queueId: string): Position {
  try {
    const [owner, submittedAt, id] = JSON.parse(
      Buffer.from(cursor, "base64url").toString("utf8"),
    ) as unknown[];
    if (owner === queueId && Number.isSafeInteger(submittedAt) && typeof id === "string") {
      return { submittedAt: submittedAt as number, id };
    }
  } catch {
    // falls through to the problem below
  }
  throw new Problem(
    400,
    "invalid_page_token",
    "the cursor is not one this listing returned; start again without it",
  );
}
