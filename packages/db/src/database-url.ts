import { MissingDatabaseUrlError, UnsupportedDatabaseUrlError } from "./errors";

/** The drivers behind {@link createDatabase}. */
export const DATABASE_DRIVERS = ["pglite", "pg", "neon"] as const;
export type DatabaseDriver = (typeof DATABASE_DRIVERS)[number];

const SUPPORTED_SCHEMES = ["pglite://", "postgres://", "postgresql://"] as const;
const NEON_HOST_SUFFIXES = [".neon.tech", ".neon.build"] as const;

/** Where a URL points, resolved without I/O. */
export type DatabaseTarget =
  | { driver: "pglite"; dataDir: string | undefined; description: string }
  | { driver: "pg" | "neon"; url: string; host: string; port: number; description: string };

/**
 * Resolves a database URL to a driver:
 * - `pglite://` → in-memory PGlite; `pglite://<dir>` → PGlite on disk;
 * - `postgres://` / `postgresql://` → node-postgres, or the Neon driver when the host is a
 *   Neon host (`*.neon.tech`) or `driver: "neon"` is given.
 * @throws {MissingDatabaseUrlError} for an undefined, empty or blank URL (an unset
 *   environment variable): the embedded database is opened only when asked for.
 * @throws {UnsupportedDatabaseUrlError} for any other scheme (no silent fallback).
 */
export function resolveDatabaseTarget(url: string | undefined, driver?: DatabaseDriver): DatabaseTarget {
  if (typeof url !== "string" || url.trim() === "") {
    throw new MissingDatabaseUrlError(url);
  }
  if (url.startsWith("pglite://")) {
    if (driver !== undefined && driver !== "pglite") {
      throw new UnsupportedDatabaseUrlError("pglite://", [`postgres:// for driver ${driver}`]);
    }
    const dataDir = url.slice("pglite://".length) || undefined;
    return { driver: "pglite", dataDir, description: dataDir ? `pglite://${dataDir}` : "pglite (in-memory)" };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase() ?? "(none)";
  if (scheme !== "postgres" && scheme !== "postgresql") {
    throw new UnsupportedDatabaseUrlError(`${scheme}://`, SUPPORTED_SCHEMES);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UnsupportedDatabaseUrlError(`${scheme}:// (malformed URL)`, SUPPORTED_SCHEMES);
  }
  const host = parsed.hostname;
  const port = parsed.port === "" ? 5432 : Number(parsed.port);
  const isNeonHost = NEON_HOST_SUFFIXES.some((suffix) => host.endsWith(suffix));
  const resolvedDriver = driver ?? (isNeonHost ? "neon" : "pg");
  if (resolvedDriver === "pglite") {
    throw new UnsupportedDatabaseUrlError(`${scheme}://`, ["pglite:// for driver pglite"]);
  }
  const database = parsed.pathname.replace(/^\//, "");
  return {
    driver: resolvedDriver,
    url,
    host,
    port,
    description: `${scheme}://${host}:${port}/${database}`,
  };
}
