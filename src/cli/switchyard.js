#!/usr/bin/env node
// The `switchyard` executable of this repository: runs the TypeScript command line tool through tsx, so that
// `npm run switchyard -- …` works in a fresh checkout without a build step. The installable client is packages/cli.
import { register } from "tsx/esm/api";

register();
await import("./main.ts");
