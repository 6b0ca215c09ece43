#!/usr/bin/env node
// The `context-cleaner` command. The published package runs its build of this file
// (dist/bin/context-cleaner.js) with plain Node.
import { main } from "../cli/main";

process.exitCode = await main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  environment: process.env,
});
