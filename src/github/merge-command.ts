// `/merge` comment commands (docs/queue.md#commands): at the start of a line, outside code blocks and quotes.
import { parsePriority } from "../queue/index.ts";

export type MergeCommand =
  | { kind: "submit"; priority: number | null; noBatch: boolean }
  | { kind: "cancel" }
  | { kind: "restart" }
  | { kind: "invalid"; problem: string };

const usage =
  "use `/merge`, `/merge --priority <urgent|high|medium|low|0-255>`, `/merge --no-batch`, `/merge cancel` or `/merge restart`";

/** The first command of a comment, or null when it has none. */
export function parseMergeCommand(body: string): MergeCommand | null {
  let fence: string | null = null;
  for (const rawLine of body.split(/\r?\n/)) {
    const line = rawLine.trimEnd();
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1] as string;
      if (fence === null) fence = marker;
      else if (marker.startsWith(fence[0] as string) && marker.length >= fence.length) fence = null;
      continue;
    }
    // Indented code (4 spaces or a tab) and quotes are not commands.
    if (fence !== null || /^( {4}|\t)/.test(line) || /^\s*>/.test(line)) continue;
    const match = /^\s{0,3}\/merge(?:\s+(.*))?$/.exec(line);
    if (match) return parseArguments((match[1] ?? "").trim().split(/\s+/).filter(Boolean));
  }
  return null;
}

function parseArguments(args: string[]): MergeCommand {
  if (args.length === 1 && args[0]?.toLowerCase() === "cancel") return { kind: "cancel" };
  if (args.length === 1 && args[0]?.toLowerCase() === "restart") return { kind: "restart" };
  let priority: number | null = null;
  let noBatch = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--no-batch") {
      noBatch = true;
    } else if (arg === "--priority" || arg === "-p" || arg.startsWith("--priority=")) {
      const value = arg.startsWith("--priority=") ? arg.slice("--priority=".length) : args[++i];
      const parsed = value === undefined ? null : parsePriority(value);
      if (parsed === null)
        return { kind: "invalid", problem: `"${value ?? ""}" is not a priority: ${usage}` };
      priority = parsed;
    } else {
      return { kind: "invalid", problem: `unknown option "${arg}": ${usage}` };
    }
  }
  return { kind: "submit", priority, noBatch };
}
