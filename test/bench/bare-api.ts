// The baseline of npm run bench:api and npm run bench:health: a bare Fastify 5 server, logging off, answering each
// of the API's POST routes with the bytes the service answered, kept as ready strings with the service's content
// type (no serialisation, no authentication, no database), so that the two differ only by what the service does
// per request. A route given several bodies answers them in turn (the pages of a walk, in the service's order).
// Run as a child process: `PORT=<port> node --import tsx test/bench/bare-api.ts <file>`, the file holding
// {path: {type, body}} or {path: {type, bodies}}.
import { readFileSync } from "node:fs";
import Fastify from "fastify";

const answersFile = process.argv[2]!;
const answers = JSON.parse(readFileSync(answersFile, "utf8")) as Record<
  string,
  { type: string; body: string } | { type: string; bodies: string[] }
>;
const server = Fastify();
server.get("/ping", async () => "pong");
for (const [path, answer] of Object.entries(answers)) {
  if ("body" in answer) {
    server.post(path, (_request, reply) => reply.type(answer.type).send(answer.body));
    continue;
  }
  let next = 0;
  server.post(path, (_request, reply) =>
    reply.type(answer.type).send(answer.bodies[next++ % answer.bodies.length]),
  );
}
await server.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
