import { parsePositiveInteger } from "../positive-integer";
import type { SweepOptions } from "../sweep/index";
import { SETTINGS } from "./settings";

/**
 * The environment variables that override the sweep's bounds, by option, from the settings
 * table: the nightly function and `context-cleaner sweep` read them with `readSweepSettings`.
 */
export const SWEEP_ENVIRONMENT = {
  maxThreads: SETTINGS.maxThreads.env,
  giveUpAfterNights: SETTINGS.giveUpAfterNights.env,
} as const satisfies Partial<Record<keyof SweepOptions, string>>;

/**
 * The sweep options the environment sets; an unset or empty variable leaves the default.
 * @throws {Error} naming the variable when its value is not a whole number of at least 1.
 */
export function sweepOptionsFromEnvironment(environment: Record<string, string | undefined>): SweepOptions {
  const options: SweepOptions = {};
  for (const [option, variable] of Object.entries(SWEEP_ENVIRONMENT) as [
    keyof typeof SWEEP_ENVIRONMENT,
    string,
  ][]) {
    const value = environment[variable];
    if (value === undefined || value === "") continue;
    const count = parsePositiveInteger(value);
    if (count === undefined) {
      throw new Error(`${variable} must be a whole number of at least 1, got ${JSON.stringify(value)}`);
    }
    options[option] = count;
  }
  return options;
}
