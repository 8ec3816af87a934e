// The request logger writes the allow-listed fields of each request and nothing else: no header it was not told
// to write, no secret query value. Driven through a real node:http server and pino writing JSON to memory.
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { loggableUrl, requestIdOf, requestLogger } from "../../src/http/request-log.ts";

describe("loggableUrl", () => {
  it("keeps a path and its plain parameters, and masks the values of parameters that may be credentials", () => {
    expect(loggableUrl("/v1/getQueue")).toBe("/v1/getQueue");
    expect(loggableUrl("/tests/x?sort=name&token=sy_abc&page=2")).toBe(
      "/tests/x?sort=name&token=[REDACTED]&page=2",
    );
    expect(loggableUrl("/probot/setup?code=v1.abc&state=1")).toBe("/probot/setup?code=[REDACTED]&state=1");
    for (const name of [
      "access_token",
      "API_KEY",
      "client_secret",
      "password",
      "session",
      "sig%6Eature",
      "jwt",
    ]) {
      expect(loggableUrl(`/x?${name}=hunter2`)).toBe(`/x?${name}=[REDACTED]`);
    }
    expect(loggableUrl("/x?flag&token=")).toBe("/x?flag&token=[REDACTED]");
  });

  it("masks by the parameter's name only, and keeps the query's shape", () => {
    expect(loggableUrl("/x?page=2&sort=name")).toBe("/x?page=2&sort=name");
    expect(loggableUrl("/x?q=token&tokens=a=b")).toBe("/x?q=token&tokens=[REDACTED]");
    expect(loggableUrl("/x?a&&b=1&")).toBe("/x?a&&b=1&");
    expect(loggableUrl("/x?")).toBe("/x?");
    expect(loggableUrl("/x?%zz=1&%74oken=2")).toBe("/x?%zz=1&%74oken=[REDACTED]");
  });

  it("bounds a very long URL", () => {
    expect(loggableUrl(`/x/${"a".repeat(5000)}`).length).toBeLessThanOrEqual(2001);
  });
});

describe("the request logger", () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  async function serveLogged(level: string) {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const log = requestLogger(pino({ level }, sink));
    server = createServer((req, res) => {
      log(req, res);
      res.setHeader("set-cookie", "switchyard_session=secret-session; HttpOnly");
      const status = /^\/status\/(\d{3})$/.exec(req.url ?? "")?.[1];
      res.writeHead(req.url?.startsWith("/fail") ? 500 : Number(status ?? 200)).end("ok");
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
    return { url, lines };
  }

  const addressOf = (url: string) => ({ host: new URL(url).hostname, port: new URL(url).port });

  const secretHeaders = {
    "x-api-token": "sy_0123456789abcdef_secret-token",
    authorization: "Bearer sy_0123456789abcdef_secret-token",
    cookie: "switchyard_session=secret-session",
    "x-hub-signature-256": "sha256=secret-signature",
    "x-hub-signature": "sha1=secret-signature",
    "user-agent": "switchyard-cli/1.0",
    "x-request-id": "req-42",
  };

  it("writes one line a request with the allow-listed fields only", async () => {
    const { url, lines } = await serveLogged("info");
    await (
      await fetch(`${url}/v1/getQueue?token=sy_0123456789abcdef_secret-token`, { headers: secretHeaders })
    ).text();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(Object.keys(line).sort()).toEqual(
      [
        "hostname",
        "level",
        "method",
        "msg",
        "name",
        "pid",
        "reqId",
        "responseTime",
        "statusCode",
        "time",
        "url",
        "userAgent",
      ].sort(),
    );
    expect(line).toMatchObject({
      level: 30,
      name: "http",
      reqId: "req-42",
      method: "GET",
      url: "/v1/getQueue?token=[REDACTED]",
      statusCode: 200,
      userAgent: "switchyard-cli/1.0",
    });
    expect(JSON.stringify(line)).not.toMatch(/secret/);
  });

  it("keeps a hostile user agent and URL inside their own fields", async () => {
    const { url, lines } = await serveLogged("info");
    const userAgent = 'evil\\" ,"level":60,"msg":"forged \u00e9';
    // Sent as is (fetch would percent-encode the quotes): node's parser accepts quotes and backslashes in a path.
    const path = '/x/"q"\\?a="b"&api_key=k\\"';
    await new Promise((resolve, reject) =>
      request({ ...addressOf(url), path, headers: { "user-agent": userAgent } }, (res) =>
        res.resume().on("end", resolve),
      )
        .on("error", reject)
        .end(),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    const logged = '/x/"q"\\?a="b"&api_key=[REDACTED]';
    expect(lines).toMatchObject([{ level: 30, userAgent, url: logged }]);
    expect(lines[0]!.msg).toBe(`GET ${logged} 200 - ${lines[0]!.responseTime}ms`);
  });

  it("writes a 5xx at error, and nothing at all above info", async () => {
    const quiet = await serveLogged("warn");
    await (await fetch(`${quiet.url}/ok`)).text();
    await (await fetch(`${quiet.url}/fail`)).text();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(quiet.lines).toEqual([]);
    server?.close();
    const { url, lines } = await serveLogged("info");
    await (await fetch(`${url}/fail`)).text();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lines).toMatchObject([
      { level: 50, statusCode: 500, msg: expect.stringMatching(/^GET \/fail 500 - /) },
    ]);
  });

  it("writes a dependency's 502, 503 or 504 (GitHub, the app not registered yet) as a warning, any other 5xx as an error", async () => {
    const { url, lines } = await serveLogged("info");
    for (const status of [501, 502, 503, 504, 507, 429])
      await (await fetch(`${url}/status/${status}`)).text();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lines.map(({ statusCode, level }) => [statusCode, level])).toEqual([
      [501, 50],
      [502, 40],
      [503, 40],
      [504, 40],
      [507, 50],
      [429, 30],
    ]);
  });
});

describe("requestIdOf", () => {
  const request = (headers: Record<string, string>) => ({ headers }) as never;

  it("keeps a plain x-request-id or GitHub delivery id, else makes a new one, and gives the same id each time", () => {
    expect(requestIdOf(request({ "x-request-id": "abc-1" }))).toBe("abc-1");
    expect(requestIdOf(request({ "x-github-delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958" }))).toBe(
      "72d3162e-cc78-11e3-81ab-4c9367dc0958",
    );
    const injected = request({ "x-request-id": 'a"\nforged line' });
    const id = requestIdOf(injected);
    expect(id).toMatch(/^[0-9a-f]{12}-[0-9a-z]+$/);
    expect(requestIdOf(injected)).toBe(id);
    expect(requestIdOf(request({}))).not.toBe(id);
  });
});
