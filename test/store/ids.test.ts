import { validate, version } from "uuid";
import { describe, expect, it } from "vitest";
import { newId } from "../../src/store/ids.ts";

describe("row ids", () => {
  it("are RFC 9562 UUIDs, version 7, in the lowercase form the API schemas accept", () => {
    const id = newId();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(validate(id)).toBe(true);
    expect(version(id)).toBe(7);
  });

  it("start with the millisecond they were made in", () => {
    const before = Date.now();
    const id = newId();
    const after = Date.now();
    const made = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    expect(made).toBeGreaterThanOrEqual(before);
    expect(made).toBeLessThanOrEqual(after);
  });

  it("sort in the order they were made, many within one millisecond, and never repeat", () => {
    const ids = Array.from({ length: 50_000 }, () => newId());
    const sameMillisecond = ids.filter(
      (id, index) => index > 0 && id.slice(0, 13) === ids[index - 1]!.slice(0, 13),
    );
    expect(sameMillisecond.length).toBeGreaterThan(0);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
