#!/usr/bin/env node
// The `context-cleaner` command inside this repository: runs the TypeScript sources with no
// build step. tsx's loader compiles them, and a resolve hook adds the
// "@context-cleaner/source" export condition so the workspace packages resolve to their
// src/ files instead of their dist/ builds. The published @context-cleaner/core runs its
// dist/bin/context-cleaner.js with plain Node instead.
import { register } from "node:module";
import { register as registerTsx } from "tsx/esm/api";

registerTsx();
register(new URL("../scripts/source-condition-hooks.mjs", import.meta.url));
await import("../packages/core/src/bin/context-cleaner.ts");
