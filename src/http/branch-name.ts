// What the API and the pages accept as a queue's target branch.
import { Type } from "@sinclair/typebox";

// A git branch name: no whitespace, control characters or the characters git forbids in refs.
export const BranchName = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: "^[^\\s~^:?*\\[\\\\\\x00-\\x1f\\x7f]+$",
});
