#!/usr/bin/env node
// The `switchyard` executable: runs the TypeScript command line tool through tsx, so that `npx switchyard`
// works in a fresh checkout without a build step.
import { register } from "tsx/esm/api";

register();
await import("./main.ts");
