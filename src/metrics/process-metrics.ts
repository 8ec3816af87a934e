// The process itself (CPU, memory, event loop lag, heap, GC) for the operator, from prom-client's default
// collectors. A registry of its own per app: the queue metrics never mix with it, and a second app in the
// same process (tests) registers its collectors without clashing.
import { collectDefaultMetrics, Registry } from "prom-client";

export function processMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}
