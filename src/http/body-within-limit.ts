// Reading a request body no larger than the limit (docs/api.md#conventions), whatever is done with its chunks.
import type { IncomingMessage } from "node:http";
import { bodyLimitBytes } from "./problem.ts";

export interface BodyReader {
  chunk(chunk: Buffer): void;
  end(): void;
  error(error: Error): void;
  /** Called instead of anything more once more than the limit has arrived. */
  refuse(): void;
}

/** Passes the body's chunks to `reader` as they arrive, then its end, an error, or the refusal of a body too large. */
export function readBodyWithinLimit(payload: IncomingMessage, reader: BodyReader): void {
  let received = 0;
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > bodyLimitBytes) {
      cleanup();
      reader.refuse();
      return;
    }
    reader.chunk(chunk);
  };
  const onEnd = () => {
    cleanup();
    reader.end();
  };
  const onError = (error: Error) => {
    cleanup();
    reader.error(error);
  };
  const cleanup = () => {
    payload.off("data", onData);
    payload.off("end", onEnd);
    payload.off("error", onError);
  };
  payload.on("data", onData);
  payload.on("end", onEnd);
  payload.on("error", onError);
}
