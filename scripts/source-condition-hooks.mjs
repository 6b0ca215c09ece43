// Node module resolve hook: resolves the workspace packages to their TypeScript sources
// through the "@context-cleaner/source" export condition (what `--conditions` would do for a
// process started with that flag). Registered by bin/context-cleaner.js after tsx's loader.
const SOURCE_CONDITION = "@context-cleaner/source";

export function resolve(specifier, context, nextResolve) {
  const conditions = context.conditions.includes(SOURCE_CONDITION)
    ? context.conditions
    : [SOURCE_CONDITION, ...context.conditions];
  return nextResolve(specifier, { ...context, conditions });
}
