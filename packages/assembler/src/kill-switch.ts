/**
 * The kill switch (docs/architecture.md#safety-rails): `CONTEXT_CLEANER_DISABLED=1`, read
 * at call time (never at import), where a `process` exists. One env var reverts assembly,
 * drops worker jobs and turns the budget refund off.
 */
export function killSwitchFromEnvironment(): boolean {
  const environment = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return environment?.CONTEXT_CLEANER_DISABLED === "1";
}
