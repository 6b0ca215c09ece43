import { parseArgs } from "node:util";
import { UsageError } from "../../errors";
import {
  readSweepSettings,
  readWorkerSettings,
  type SettingReader,
  type SweepSettings,
  settingFlags,
  type WorkerSettings,
} from "../../worker/settings";

export type { SweepSettings, WorkerSettings } from "../../worker/settings";

/** A command's flags: its settings' flags from the table, and its own. */
function parseCommandArgs(
  command: SettingReader,
  args: readonly string[],
  own: Record<string, { type: "boolean" }> = {},
): { flags: Record<string, string | undefined>; own: Record<string, boolean | undefined> } {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: { ...settingFlags(command), ...own },
    allowPositionals: true,
  });
  if (positionals.length > 0) {
    throw new UsageError(`${command} takes no arguments, got ${JSON.stringify(positionals[0])}`);
  }
  const flags: Record<string, string | undefined> = {};
  const switches: Record<string, boolean | undefined> = {};
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === "boolean") switches[name] = value;
    else flags[name] = value as string | undefined;
  }
  return { flags, own: switches };
}

/**
 * The worker's settings from its flags, else the environment (an empty variable counts as
 * unset), read by the settings table's reader as the digest function reads them. Everything
 * is checked here, before any connection is made.
 *
 * @throws {UsageError} naming the setting that is missing or invalid, and how to give it.
 */
export function parseWorkerSettings(
  args: readonly string[],
  environment: Record<string, string | undefined>,
): WorkerSettings {
  const { flags } = parseCommandArgs("worker", args);
  return readWorkerSettings({ environment, flags });
}

/**
 * The sweep's settings from its flags, else the environment, as the nightly function reads
 * them, and the command's own switches (`--dry-run`, `--json`).
 * @throws {UsageError} naming the setting that is missing or invalid.
 */
export function parseSweepSettings(
  args: readonly string[],
  environment: Record<string, string | undefined>,
): { settings: SweepSettings; dryRun: boolean; json: boolean } {
  const { flags, own } = parseCommandArgs("sweep", args, {
    "dry-run": { type: "boolean" },
    json: { type: "boolean" },
  });
  return {
    settings: readSweepSettings({ environment, flags }),
    dryRun: own["dry-run"] ?? false,
    json: own.json ?? false,
  };
}
