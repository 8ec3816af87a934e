import type { Principal } from "../ports/api-tokens.ts";

/** Whether the token's organization covers the GitHub owner `owner` on `host` (docs/api.md#tokens-and-organizations). */
export function organizationCovers(principal: Principal, host: string, owner: string): boolean {
  const ownerKey = owner.toLowerCase();
  return principal.owners.some((covered) => covered.host === host && covered.ownerKey === ownerKey);
}
