// The address the setup-mode banner tells a person to open: where the service listens, as a browser can reach it.
import { describe, expect, it } from "vitest";
import { browsable } from "../src/setup-server.ts";

describe("the setup page's address in the banner", () => {
  it("is the host the service listens on, an IPv6 address in brackets", () => {
    expect(browsable("localhost")).toBe("localhost");
    expect(browsable("127.0.0.1")).toBe("127.0.0.1");
    expect(browsable("::1")).toBe("[::1]");
  });

  it("is localhost when the service listens on every address (as in a container)", () => {
    expect(browsable("0.0.0.0")).toBe("localhost");
    expect(browsable("::")).toBe("localhost");
  });
});
