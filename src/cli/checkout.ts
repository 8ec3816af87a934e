// Where the repository the upload commands run in is checked out.
import { spawnSync } from "node:child_process";

/** The top of the git checkout around `cwd`, else `cwd` itself (no git, or not in a checkout). */
export function checkoutRoot(cwd: string): string {
  const git = spawnSync("git", ["rev-parse", "--show-toplevel"], { cwd, encoding: "utf8" });
  const top = git.status === 0 ? git.stdout.trim() : "";
  return top === "" ? cwd : top;
}
