import type { Principal } from "../ports/api-tokens.ts";

/** contract 3: whether the token's organization covers the GitHub owner `owner` on `host`. */
export function organizationCovers(principal: Principal, host: string, owner: string): boolean {
  const ownerKey = owner.toLowerCase();
  return principal.owners.some((covered) => covered.host === host && covered.ownerKey === ownerKey);
}
