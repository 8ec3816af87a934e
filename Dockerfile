# Switchyard's container image: the service and its command line tool bundled by esbuild, beside the only packages
# the bundles load from node_modules (better-sqlite3's native addon, the PostgreSQL driver, Fastify's schema
# compilers; scripts/runtime-modules.mjs), run as the unprivileged `node` user. See docs/operations.md.

# --- build: bundle the service and the command line tool (esbuild, a dev dependency), and gather the packages the
# bundles load at run time
FROM node:24-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles its native module when no prebuilt binary can be fetched for the platform.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json app.yml ./
COPY src src
COPY db db
COPY scripts/bundle-service.mjs scripts/runtime-modules.mjs scripts/
COPY packages/cli/package.json packages/cli/package.json
RUN node scripts/bundle-service.mjs && node scripts/runtime-modules.mjs /runtime

# --- runtime: the bundles and the runtime packages, nothing else (no npm install, no compiler)
FROM node:24-bookworm-slim
# MALLOC_ARENA_MAX: glibc would otherwise give each thread that allocates an arena of its own, which keeps freed
# memory after a large upload (docs/performance.md).
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=file:/data/switchyard.db
WORKDIR /app
COPY --from=build /app/package.json /app/app.yml ./
COPY --from=build /runtime/node_modules node_modules
COPY --from=build /app/dist/src dist/src
# SQLite's file, when DATABASE_URL is not PostgreSQL, lives on a volume the service may write.
RUN mkdir /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 3000
# Liveness: /healthz answers while the process serves requests (node has fetch; the slim image has no curl).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/main.js"]
