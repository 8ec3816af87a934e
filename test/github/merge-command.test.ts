import { describe, expect, it } from "vitest";
import { parseMergeCommand } from "../../src/github/merge-command.ts";

describe("parsing /merge comments", () => {
  it("finds /merge at the start of any line", () => {
    expect(parseMergeCommand("Ship it!\n/merge")).toEqual({ kind: "submit", priority: null, noBatch: false });
  });

  it("reads priorities by name or number, and --no-batch", () => {
    expect(parseMergeCommand("/merge --priority URGENT --no-batch")).toEqual({
      kind: "submit",
      priority: 0,
      noBatch: true,
    });
    expect(parseMergeCommand("/merge -p 42")).toEqual({ kind: "submit", priority: 42, noBatch: false });
    expect(parseMergeCommand("/merge --priority=low")).toEqual({
      kind: "submit",
      priority: 200,
      noBatch: false,
    });
  });

  it("reads cancel and restart", () => {
    expect(parseMergeCommand("/merge cancel")).toEqual({ kind: "cancel" });
    expect(parseMergeCommand("/merge Restart")).toEqual({ kind: "restart" });
  });

  it("explains what is wrong with a bad command", () => {
    expect(parseMergeCommand("/merge --priority 300")).toMatchObject({
      kind: "invalid",
      problem: expect.stringContaining('"300" is not a priority'),
    });
    expect(parseMergeCommand("/merge --force")).toMatchObject({
      kind: "invalid",
      problem: expect.stringContaining('unknown option "--force"'),
    });
  });

  it("ignores /merge in fenced or indented code, in quotes, and in the middle of a line", () => {
    expect(parseMergeCommand("```\n/merge\n```")).toBeNull();
    expect(parseMergeCommand("~~~sh\n/merge\n~~~")).toBeNull();
    expect(parseMergeCommand("    /merge")).toBeNull();
    expect(parseMergeCommand("> /merge")).toBeNull();
    expect(parseMergeCommand("please /merge this")).toBeNull();
    expect(parseMergeCommand("/merged already")).toBeNull();
  });

  it("finds a command after a closed code block", () => {
    expect(parseMergeCommand("```\ncode\n```\n/merge cancel")).toEqual({ kind: "cancel" });
  });
});
