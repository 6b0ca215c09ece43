#!/usr/bin/env node
// The `context-cleaner` command. The published package runs its build of this file
// (dist/bin/context-cleaner.js) with plain Node.
import { main } from "../cli/main";
import { processIo } from "../cli/process-io";

process.exitCode = await main(process.argv.slice(2), processIo());
