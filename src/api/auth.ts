// x-api-token authentication (docs/api.md#tokens-and-organizations): every /v1 route but the OpenAPI document needs a valid token. A token is
// bound to its secret and its organization only: neither the Host the service is reached by nor any X-Forwarded-*
// header takes part, so a token keeps working behind a proxy or under another DNS name.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Principal } from "../ports/api-tokens.ts";
import type { EdgeDependencies } from "../http/dependencies.ts";
import { Problem } from "../http/problem.ts";
import { TokenRateLimit } from "./rate-limit.ts";

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** Routes that answer without a token (the OpenAPI document). */
    public?: boolean;
    /** Routes that also take the token as `Authorization: Bearer <token>` (the metrics scrape). */
    acceptsBearerToken?: boolean;
  }
}

export function registerAuthentication(api: FastifyInstance, deps: EdgeDependencies): void {
  const perMinute = deps.config.apiRateLimitPerMinute;
  const rateLimit = perMinute === null ? null : new TokenRateLimit(perMinute);
  api.decorateRequest("principal", null);
  api.addHook("onRequest", async (request) => {
    if (request.routeOptions.config.public === true || request.routeOptions.url === undefined) return;
    const header = request.headers["x-api-token"];
    const presented =
      (Array.isArray(header) ? header[0] : header) ??
      (request.routeOptions.config.acceptsBearerToken === true
        ? bearerToken(request.headers.authorization)
        : undefined);
    if (presented === undefined || presented === "") {
      throw new Problem(
        401,
        "unauthenticated",
        "missing x-api-token header: create a token with `switchyard token create`",
      );
    }
    const principal = await deps.tokens.authenticate(presented, deps.clock());
    if (principal === null)
      throw new Problem(401, "unauthenticated", "the x-api-token is unknown or revoked");
    rateLimit?.take(principal.tokenId, deps.clock());
    request.principal = principal;
  });
}

function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  return match?.[1];
}

/** The authenticated principal of a route that requires a token. */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === null) throw new Error("route reached without authentication");
  return request.principal;
}
