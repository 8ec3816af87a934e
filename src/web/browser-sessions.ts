// Sessions of the test pages: a browser cannot send x-api-token, so a person signs in once with a token and gets a
// cookie. The cookie never holds the token: it names the token's id and when the session ends, signed with
// HMAC-SHA256 under a per-database secret (every replica agrees). Each request looks the token up again, so a
// revoked token ends its sessions at once.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";

export const SESSION_COOKIE = "switchyard_session";
export const SESSION_LIFETIME_MS = 12 * 3600 * 1000;

const MAC_BYTES = 16;
const tokenIdPattern = /^[0-9a-f]{16}$/;

export class BrowserSessions {
  constructor(private readonly secret: Buffer) {}

  /** A session for the token `tokenId`, valid for SESSION_LIFETIME_MS from `now`. */
  issue(tokenId: string, now: number): string {
    const body = `${tokenId}.${now + SESSION_LIFETIME_MS}`;
    return `${body}.${this.mac(body)}`;
  }

  /** The token id a session this service issued names, or null for a forged, altered or expired one. */
  tokenIdOf(session: string, now: number): string | null {
    const [tokenId = "", expiresAt = "", mac = "", ...rest] = session.split(".");
    const presented = Buffer.from(mac, "base64url");
    const expected = Buffer.from(this.mac(`${tokenId}.${expiresAt}`), "base64url");
    if (rest.length > 0 || presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
      return null;
    }
    if (!tokenIdPattern.test(tokenId) || !(Number(expiresAt) > now)) return null;
    return tokenId;
  }

  /**
   * The anti-forgery token of a session's forms: another site can make a browser post a form but cannot read
   * the HttpOnly cookie, so it cannot know this MAC of it. Told apart from the session's own MAC by its prefix.
   */
  formToken(session: string): string {
    return this.mac(`form:${session}`);
  }

  private mac(body: string): string {
    return createHmac("sha256", this.secret)
      .update(body)
      .digest()
      .subarray(0, MAC_BYTES)
      .toString("base64url");
  }
}

/**
 * The Set-Cookie value of a session: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it),
 * Secure when the service is served over https, and scoped to the test pages.
 */
export function sessionCookie(session: string, options: { path: string; secure: boolean }): string {
  const attributes = [
    `${SESSION_COOKIE}=${session}`,
    `Path=${options.path}`,
    `Max-Age=${SESSION_LIFETIME_MS / 1000}`,
    "HttpOnly",
    "SameSite=Strict",
  ];
  if (options.secure) attributes.push("Secure");
  return attributes.join("; ");
}

/** Whether a form's `presented` token is `expected`, compared in constant time. */
export function isFormToken(presented: string, expected: string): boolean {
  const given = Buffer.from(presented);
  const wanted = Buffer.from(expected);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** The value of the cookie `name` in a Cookie header, if it has one. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? "").split(";")) {
    const separator = pair.indexOf("=");
    if (separator > 0 && pair.slice(0, separator).trim() === name) return pair.slice(separator + 1).trim();
  }
  return undefined;
}

/**
 * Whether a post comes from another site's page, as the browser tells it; the forms' token (isFormToken) is the
 * check that holds whatever the browser sends. `Sec-Fetch-Site` is believed when present: the browser sets it
 * and no page can, and only `same-origin` (or `none`, typed by the person) is this service. A browser without
 * it is judged by `Origin`, which the pages' `Referrer-Policy: same-origin` lets it send; `null` (an opaque
 * origin: a sandboxed frame, a data: URL) is never this service.
 */
export function fromAnotherSite(request: FastifyRequest, publicHost: string): boolean {
  const fetchSite = request.headers["sec-fetch-site"];
  if (fetchSite !== undefined) return fetchSite !== "same-origin" && fetchSite !== "none";
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  const host = URL.canParse(origin) ? new URL(origin).host : null;
  return host !== publicHost && host !== request.headers.host;
}
