#!/usr/bin/env node
// The `context-cleaner` command: runs the TypeScript sources through tsx's loader.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
const { processIo } = await import("../src/cli/process-io.ts");
process.exitCode = await main(process.argv.slice(2), processIo());
