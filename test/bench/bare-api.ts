// The baseline of npm run bench:api: a bare Fastify server answering each of the API's POST routes with the JSON
// the service answered once, so the two throughputs differ only by what the service does per request.
// Run as a child process: `PORT=<port> tsx test/bench/bare-api.ts <file of {path: body}>`.
import { readFileSync } from "node:fs";
import Fastify from "fastify";

const bodiesFile = process.argv[2]!;
const bodies = JSON.parse(readFileSync(bodiesFile, "utf8")) as Record<string, unknown>;
const server = Fastify();
server.get("/ping", async () => "pong");
for (const [path, body] of Object.entries(bodies)) server.post(path, async () => body);
await server.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
