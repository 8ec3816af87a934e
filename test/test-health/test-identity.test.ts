import { createHash } from "node:crypto";
import fc from "fast-check";
import { v5 as uuidv5 } from "uuid";
import { describe, expect, it } from "vitest";
import { relativeFilePath, testCaseId } from "../../src/test-health/test-identity.ts";

const repo = { host: "github.com", owner: "acme", name: "widgets" };
const key = {
  filePath: "src/cart.test.ts",
  classname: "cart",
  parent: "cart.test.ts",
  name: "adds an item",
  variant: "node-20",
};

// RFC 9562 section 5.5, written out so that the expectation does not come from the code under test.
function uuidV5ByHand(namespace: string, name: string): string {
  const digest = createHash("sha1")
    .update(Buffer.from(namespace.replaceAll("-", ""), "hex"))
    .update(name, "utf8")
    .digest();
  const bytes = digest.subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

describe("test identity", () => {
  it("is the UUIDv5 of the documented string in the URL namespace", () => {
    const literal = "github.com/acme/widgets#src/cart.test.ts#cart#cart.test.ts#adds an item#node-20";
    expect(testCaseId(repo, key)).toBe(uuidv5(literal, uuidv5.URL));
  });

  it("agrees with an RFC 9562 computation written out by hand", () => {
    const literal = "github.com/acme/widgets#src/cart.test.ts#cart#cart.test.ts#adds an item#node-20";
    expect(testCaseId(repo, key)).toBe(uuidV5ByHand("6ba7b811-9dad-11d1-80b4-00c04fd430c8", literal));
  });

  it("agrees with the value Python's uuid.uuid5(uuid.NAMESPACE_URL, ...) gives", () => {
    expect(testCaseId(repo, key)).toBe("8756c48b-7e01-53a2-a438-cec57e4fc9c7");
    expect(testCaseId(repo, { name: "test_passes" })).toBe("90c9b9d5-95cf-566a-b411-85e009db764c");
  });

  it("lowercases the owner and the repository name", () => {
    expect(testCaseId({ host: "github.com", owner: "ACME", name: "Widgets" }, key)).toBe(
      testCaseId(repo, key),
    );
  });

  it("keeps the host as given", () => {
    expect(testCaseId({ ...repo, host: "ghe.example.com" }, key)).toBe(
      uuidv5(
        "ghe.example.com/acme/widgets#src/cart.test.ts#cart#cart.test.ts#adds an item#node-20",
        uuidv5.URL,
      ),
    );
  });

  it("treats missing fields as empty strings", () => {
    const expected = uuidv5("github.com/acme/widgets###suite#works#", uuidv5.URL);
    expect(testCaseId(repo, { parent: "suite", name: "works" })).toBe(expected);
    expect(
      testCaseId(repo, { filePath: null, classname: "", parent: "suite", name: "works", variant: undefined }),
    ).toBe(expected);
  });

  it.each(["filePath", "classname", "parent", "name", "variant"] as const)(
    "changes when %s changes",
    (field) => {
      expect(testCaseId(repo, { ...key, [field]: `${key[field]}-other` })).not.toBe(testCaseId(repo, key));
    },
  );

  it("agrees with the uuid package for any text, astral and lone surrogates included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string({ unit: "grapheme" }), (name, classname) => {
        const literal = `github.com/acme/widgets##${classname}##${name}#`;
        expect(testCaseId(repo, { classname, name })).toBe(uuidv5(literal, uuidv5.URL));
      }),
    );
  });

  it("agrees with the uuid package for names of any length", () => {
    for (const length of [5000, 6000, 20_000]) {
      const name = "é".repeat(length);
      expect(testCaseId(repo, { name })).toBe(uuidv5(`github.com/acme/widgets####${name}#`, uuidv5.URL));
    }
    expect(testCaseId(repo, key)).toBe("8756c48b-7e01-53a2-a438-cec57e4fc9c7");
  });

  it("depends on the order of the fields", () => {
    expect(testCaseId(repo, { classname: "a", parent: "b" })).not.toBe(
      testCaseId(repo, { classname: "b", parent: "a" }),
    );
  });
});

describe("file paths relative to the checkout", () => {
  it.each([
    ["/home/runner/work/shop/tests/CartTest.php", "/home/runner/work/shop", "tests/CartTest.php"],
    ["/home/runner/work/shop/tests/CartTest.php", "/home/runner/work/shop/", "tests/CartTest.php"],
    ["D:\\a\\shop\\tests\\CartTest.php", "D:\\a\\shop", "tests/CartTest.php"],
    // Another directory whose name begins like the checkout's, a path elsewhere, a relative path: kept.
    [
      "/home/runner/work/shop2/tests/CartTest.php",
      "/home/runner/work/shop",
      "/home/runner/work/shop2/tests/CartTest.php",
    ],
    ["/opt/vendor/Test.php", "/home/runner/work/shop", "/opt/vendor/Test.php"],
    ["tests/test_cart.py", "/home/runner/work/shop", "tests/test_cart.py"],
    ["/srv/app/x.php", "/", "/srv/app/x.php"],
    ["/srv/app/x.php", null, "/srv/app/x.php"],
  ])("%s below %s is %s", (filePath, root, expected) => {
    expect(relativeFilePath(filePath, root)).toBe(expected);
  });
});
