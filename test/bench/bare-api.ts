// The baseline of npm run bench:api: a bare Fastify 5 server, logging off, answering each of the API's POST routes
// with the bytes the service answered, kept as a ready string with the service's content type (no serialisation,
// no authentication, no database), so that the two throughputs differ only by what the service does per request.
// Run as a child process: `PORT=<port> node --import tsx test/bench/bare-api.ts <file of {path: {type, body}}>`.
import { readFileSync } from "node:fs";
import Fastify from "fastify";

const answersFile = process.argv[2]!;
const answers = JSON.parse(readFileSync(answersFile, "utf8")) as Record<
  string,
  { type: string; body: string }
>;
const server = Fastify();
server.get("/ping", async () => "pong");
for (const [path, { type, body }] of Object.entries(answers)) {
  server.post(path, (_request, reply) => reply.type(type).send(body));
}
await server.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
