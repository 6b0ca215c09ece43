import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The drizzle-kit migrations: `migrations/` beside the built module when installed from the
 * registry (the build copies them into dist/), else the repository's `migrations/` folder,
 * resolved from this source file.
 */
export function defaultMigrationsFolder(): string {
  const shipped = new URL("./migrations", import.meta.url);
  if (existsSync(new URL("./migrations/meta/_journal.json", import.meta.url))) return fileURLToPath(shipped);
  return fileURLToPath(new URL("../../../migrations", import.meta.url));
}
