// Preloaded into the measured replica (node --expose-gc --import): asked over the IPC channel, it collects all
// garbage and answers what the process's JavaScript still holds, how much of it is compiled code, and its RSS then.
// RSS alone cannot tell a leak from a heap that V8 grew under load and gives back only after a while idle; what
// survives a full collection can.
import { getHeapCodeStatistics } from "node:v8";

if (globalThis.gc === undefined) throw new Error("the heap probe needs node --expose-gc");
const collect = globalThis.gc;

process.on("message", (message: unknown) => {
  if (message !== "memory-after-gc") return;
  // Twice: what the first collection's finalizers and weak references let go is freed by the second.
  collect();
  collect();
  const { heapUsed, external, rss } = process.memoryUsage();
  const { code_and_metadata_size: machineCode, bytecode_and_metadata_size: bytecode } =
    getHeapCodeStatistics();
  process.send?.({ live: heapUsed + external, code: machineCode + bytecode, rss });
});
