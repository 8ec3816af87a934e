// Paging of the test-health listings (docs/test-health.md#paging): opaque page tokens that carry a keyset
// position and the walk's snapshot, signed with HMAC-SHA256 under a per-database secret (every replica agrees),
// so that a forged, altered or stale token, or one issued for another query, is refused with 400.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { LISTING_SNAPSHOT_LIFETIME_MS, type Page, type PagePosition } from "../test-health/index.ts";
import { InvalidRequest } from "../ports/refusals.ts";

export const DEFAULT_PAGE_SIZE = 25;

export interface PageQuery {
  page_size?: number;
  page_token?: string;
}

/** docs/test-health.md#paging: every field is always present; tokens that do not apply are "". */
export interface PageObject {
  total_rows: number;
  total_pages: number;
  next_page_token: string;
  prev_page_token: string;
  last_page_token: string;
  page_index: number;
}

type Direction = "after" | "before" | "last";

interface TokenPayload {
  /** Which query the token belongs to (listing, repository, filters, page size). */
  q: string;
  /** The walk's snapshot time. */
  s: number;
  /** The index of the page the token leads to. */
  i: number;
  d: Direction;
  /** The sort key of the row the page starts after or ends before. */
  k?: unknown[];
}

const MAC_BYTES = 16;

export class PageTokens {
  constructor(private readonly secret: Buffer) {}

  issue(payload: TokenPayload): string {
    const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
    return `${body}.${this.mac(body).toString("base64url")}`;
  }

  /** The payload of a token this service issued for `query`, or a 400 invalid_page_token. */
  read(token: string, query: string, now: number): TokenPayload {
    const [body = "", mac = "", ...rest] = token.split(".");
    const presented = Buffer.from(mac, "base64url");
    const expected = this.mac(body);
    if (rest.length > 0 || presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
      throw invalidPageToken(
        "the page_token was not issued by this service; start again with an empty page_token",
      );
    }
    const payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as TokenPayload;
    if (payload.q !== query) {
      throw invalidPageToken(
        "the page_token belongs to another query: keep the repository, filters and page_size of the first page",
      );
    }
    if (now - payload.s > LISTING_SNAPSHOT_LIFETIME_MS) {
      throw invalidPageToken("the page_token has expired; start again with an empty page_token");
    }
    return payload;
  }

  private mac(body: string): Buffer {
    return createHmac("sha256", this.secret).update(body).digest().subarray(0, MAC_BYTES);
  }
}

const invalidPageToken = (detail: string) => new InvalidRequest("invalid_page_token", detail);

/** A short fingerprint of what a walk lists, which its tokens must match. */
export function queryFingerprint(parts: readonly (string | number)[]): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 22);
}

export interface Listing<Row, Key extends unknown[]> {
  /** Identifies the query: the listing, the repository and its filters. */
  query: readonly (string | number)[];
  count(snapshot: number): Promise<number>;
  page(snapshot: number, position: PagePosition<Key>, limit: number): Promise<Page<Row>>;
  keyOf(row: Row): Key;
  /** Whether a token's key has the shape of this listing's keys. */
  isKey(value: unknown): value is Key;
}

/**
 * Reads the page `pageQuery` asks for. Pages after the first are read after the last row of the page before
 * (or, going back, before the first row of the page after), as of the snapshot of the walk's first page; the last
 * page holds what is left once the other pages are full, so walking back from it meets the same pages.
 */
export async function readPage<Row, Key extends unknown[]>(
  tokens: PageTokens,
  pageQuery: PageQuery,
  listing: Listing<Row, Key>,
  now: number,
): Promise<{ rows: Row[]; page: PageObject }> {
  const size = pageQuery.page_size || DEFAULT_PAGE_SIZE;
  const query = queryFingerprint([...listing.query, size]);
  const token = pageQuery.page_token ? tokens.read(pageQuery.page_token, query, now) : null;
  const snapshot = token?.s ?? now;
  let position: PagePosition<Key>;
  if (token === null) position = { kind: "first" };
  else if (token.d === "last") position = { kind: "last" };
  else if (listing.isKey(token.k)) position = { kind: token.d, key: token.k };
  else throw invalidPageToken("the page_token is malformed; start again with an empty page_token");

  const totalRows = await listing.count(snapshot);
  const totalPages = Math.ceil(totalRows / size);
  const lastIndex = Math.max(totalPages - 1, 0);
  const limit = position.kind === "last" ? totalRows - lastIndex * size || size : size;
  const { rows, more } = await listing.page(snapshot, position, limit);

  let index: number;
  let hasNext: boolean;
  let hasPrevious: boolean;
  switch (position.kind) {
    case "first":
      [index, hasNext, hasPrevious] = [0, more, false];
      break;
    case "after":
      [index, hasNext, hasPrevious] = [token?.i ?? 0, more, true];
      break;
    case "before":
      // Walking back reached the start sooner when rows left the listing meanwhile: that page is the first.
      [index, hasNext, hasPrevious] = [more ? (token?.i ?? 0) : 0, true, more];
      break;
    case "last":
      [index, hasNext, hasPrevious] = [lastIndex, false, more];
      break;
  }
  const first = rows[0];
  const last = rows.at(-1);
  const issue = (d: Direction, i: number, k?: Key) =>
    tokens.issue({ q: query, s: snapshot, i, d, ...(k ? { k } : {}) });
  return {
    rows,
    page: {
      total_rows: totalRows,
      total_pages: totalPages,
      next_page_token: hasNext && last !== undefined ? issue("after", index + 1, listing.keyOf(last)) : "",
      prev_page_token:
        hasPrevious && first !== undefined
          ? issue("before", Math.max(index - 1, 0), listing.keyOf(first))
          : "",
      last_page_token: index < lastIndex ? issue("last", lastIndex) : "",
      page_index: index,
    },
  };
}
