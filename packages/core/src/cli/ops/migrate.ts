import { parseArgs } from "node:util";
import { UsageError } from "../../errors";
import { DATABASE_DRIVER_CHOICES } from "../../worker/function-database";
import { SETTINGS } from "../../worker/settings";
import type { OpsContext } from "./ops-context";

// The names the worker and the sweep read the digest database by (the settings table).
const URL_SETTING = SETTINGS.databaseUrl;
const DRIVER_SETTING = SETTINGS.databaseDriver;

const MIGRATE_USAGE = `Usage: context-cleaner migrate [--${URL_SETTING.flag} <url>] [--${DRIVER_SETTING.flag} ${DATABASE_DRIVER_CHOICES.join("|")}]

Applies the storage migrations (@context-cleaner/db's migrations/) to the digest database,
the one the worker and the sweep use: creates the tables, row-level security and the
app_user and app_sweeper roles, and grants the migrating user membership of them. Run it
as a role that owns the schema, before the first worker starts and after each upgrade;
migrations already applied are skipped.

  --${URL_SETTING.flag} <url>   (or ${URL_SETTING.env}; --${URL_SETTING.aliases[0]} is taken too) postgres://…, a Neon host,
                        or pglite://<dir> (an embedded database on disk)
  --${DRIVER_SETTING.flag}      (or ${DRIVER_SETTING.env}) ${DATABASE_DRIVER_CHOICES.join(" or ")}; default: by URL, neon for *.neon.tech`;

/**
 * `context-cleaner migrate`: applies the storage package's migrations
 * (`Database.migrate()`) to the database of `--database-url` (or `--database`), else
 * `DATABASE_URL`: the settings table's names for the digest database. The driver is
 * `--database-driver`, else `CONTEXT_CLEANER_DB_DRIVER`, else the URL's.
 */
export async function migrateCommand(args: string[], context: OpsContext): Promise<void> {
  const { io } = context;
  const { values, positionals } = parseArgs({
    args,
    options: {
      [URL_SETTING.flag]: { type: "string" },
      [URL_SETTING.aliases[0]]: { type: "string" },
      [DRIVER_SETTING.flag]: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
  });
  if (values.help) {
    io.stdout(`${MIGRATE_USAGE}\n`);
    return;
  }
  if (positionals.length > 0) {
    throw new UsageError(`migrate takes no arguments, got ${JSON.stringify(positionals[0])}`);
  }
  const flags: Record<string, string | boolean | undefined> = values;
  const flagValue = (name: string) => {
    const value = flags[name];
    return typeof value === "string" && value !== "" ? value : undefined;
  };
  const url =
    flagValue(URL_SETTING.flag) ??
    flagValue(URL_SETTING.aliases[0]) ??
    (io.environment[URL_SETTING.env] || undefined);
  if (url === undefined) {
    throw new UsageError(`migrate needs the database: --${URL_SETTING.flag} <url> or ${URL_SETTING.env}`);
  }
  const driverName = flagValue(DRIVER_SETTING.flag) ?? (io.environment[DRIVER_SETTING.env] || undefined);
  const driver = DATABASE_DRIVER_CHOICES.find((choice) => choice === driverName);
  if (driverName !== undefined && driver === undefined) {
    throw new UsageError(
      `--${DRIVER_SETTING.flag} (or ${DRIVER_SETTING.env}) must be one of ${DATABASE_DRIVER_CHOICES.join(", ")}, got ${JSON.stringify(driverName)}`,
    );
  }
  const database = await context.openDatabase(url, driver ? { driver } : {});
  try {
    io.stdout(`Migrating ${database.description} …\n`);
    await database.migrate();
    io.stdout("Migrations applied: the database is up to date.\n");
  } finally {
    await database.close();
  }
}
