// Who a request acts for: the API token it carries (x-api-token, a bearer token, or the token a browser session
// was opened with), its organization and the GitHub owners that covers. src/store/tokens.ts implements it.

export interface Owner {
  host: string;
  ownerKey: string;
}

/** Who a request acts for: the token's organization and the GitHub owners it covers. */
export interface Principal {
  tokenId: string;
  organizationId: string;
  organizationSlug: string;
  owners: Owner[];
}

export interface ApiTokens {
  /** The principal of a valid token, or null (unknown, revoked, malformed). */
  authenticate(token: string, now: number): Promise<Principal | null>;
  /** The principal of a token by its id (a browser session's), or null when revoked. */
  principalOfToken(tokenId: string): Promise<Principal | null>;
}
