// What a queue command decides: the events to step, or a refusal the door says in its own medium (a problem JSON
// answer, a reply comment, a page). The doors (the /v1 routes, the `/merge` comments, the queue's page) fetch the
// facts a command needs, ask the command, step its events and translate its refusal; none decides on its own.
import type { QueueEvent } from "../queue/index.ts";

export type CommandAnswer<Refusal extends { readonly code: string }> =
  | { readonly events: readonly QueueEvent[]; readonly refused?: undefined }
  | { readonly refused: Refusal; readonly events?: undefined };

export const stepping = (...events: QueueEvent[]) => ({ events }) as const;
export const refusing = <const Refusal extends { readonly code: string }>(refused: Refusal) =>
  ({ refused }) as const;
