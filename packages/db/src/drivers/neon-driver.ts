import { neonConfig, Pool } from "@neondatabase/serverless";
import { drizzle } from "drizzle-orm/neon-serverless";
import { migrate } from "drizzle-orm/neon-serverless/migrator";
import ws from "ws";
import { ignoreIdleClientErrors, probePool } from "./connection-probe";
import { type DriverConnection, toDriverConnection } from "./driver-connection";
import type { NeonSettings } from "./neon-settings";

export type { NeonSettings } from "./neon-settings";

/**
 * A `@neondatabase/serverless` Pool (WebSocket) with `drizzle-orm/neon-serverless`, which
 * supports interactive transactions (neon-http does not). Opening it does no I/O: the
 * first operation connects, after a probe that turns an unreachable endpoint into a
 * `DatabaseConnectionError`.
 */
export function connectNeon(
  url: string,
  target: string,
  settings: { connectTimeoutMs: number; maxConnections: number; neon: NeonSettings },
): DriverConnection {
  // `ws` before the runtime's own WebSocket: its error events carry the socket's error
  // (ECONNREFUSED, a TLS failure), which a connection error must name; the WHATWG
  // WebSocket of Node 22 reports only "network error".
  neonConfig.webSocketConstructor =
    settings.neon.webSocketConstructor ??
    neonConfig.webSocketConstructor ??
    (ws as unknown as typeof neonConfig.webSocketConstructor);
  const overrides = { ...settings.neon };
  delete overrides.webSocketConstructor;
  Object.assign(neonConfig, overrides);
  const pool = ignoreIdleClientErrors(
    new Pool({
      connectionString: url,
      connectionTimeoutMillis: settings.connectTimeoutMs,
      max: settings.maxConnections,
    }),
  );
  return toDriverConnection(
    drizzle({ client: pool }),
    migrate,
    () => probePool("neon", target, settings.connectTimeoutMs, pool),
    () => pool.end(),
  );
}
