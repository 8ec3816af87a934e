// Issue comments on pull requests and the reactions on them.
import type { World } from "./world.ts";
import { notFound, validationFailed } from "./world.ts";

export interface CommentRecord {
  readonly id: number;
  readonly issueNumber: number;
  body: string;
  readonly author: string;
  readonly createdAt: string;
  updatedAt: string;
}

export interface ReactionRecord {
  readonly id: number;
  readonly commentId: number;
  readonly content: string;
  readonly user: string;
  readonly createdAt: string;
}

const reactionContents: readonly string[] = [
  "+1",
  "-1",
  "laugh",
  "confused",
  "heart",
  "hooray",
  "rocket",
  "eyes",
];

export class Conversation {
  private readonly comments: CommentRecord[] = [];
  private readonly reactions: ReactionRecord[] = [];

  constructor(private readonly world: World) {}

  addComment(issueNumber: number, author: string, body: string): CommentRecord {
    const now = this.world.now();
    const comment = { id: this.world.nextId(), issueNumber, body, author, createdAt: now, updatedAt: now };
    this.comments.push(comment);
    return comment;
  }

  editComment(id: number, body: string): CommentRecord {
    const comment = this.comment(id);
    comment.body = body;
    comment.updatedAt = this.world.now();
    return comment;
  }

  comment(id: number): CommentRecord {
    const comment = this.comments.find((candidate) => candidate.id === id);
    if (!comment) throw notFound();
    return comment;
  }

  commentsOn(issueNumber: number): CommentRecord[] {
    return this.comments.filter((comment) => comment.issueNumber === issueNumber);
  }

  /** The reaction, and whether it is new: GitHub answers 200 rather than 201 for one that already exists. */
  react(commentId: number, user: string, content: string): { reaction: ReactionRecord; created: boolean } {
    this.comment(commentId);
    if (!reactionContents.includes(content)) {
      throw validationFailed({ resource: "Reaction", field: "content", code: "invalid" });
    }
    const existing = this.reactions.find(
      (reaction) =>
        reaction.commentId === commentId && reaction.user === user && reaction.content === content,
    );
    if (existing) return { reaction: existing, created: false };
    const reaction = { id: this.world.nextId(), commentId, content, user, createdAt: this.world.now() };
    this.reactions.push(reaction);
    return { reaction, created: true };
  }

  reactionsTo(commentId: number): ReactionRecord[] {
    return this.reactions.filter((reaction) => reaction.commentId === commentId);
  }
}
