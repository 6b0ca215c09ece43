import type { neonConfig } from "@neondatabase/serverless";

/**
 * Overrides of the Neon driver's (process-global) `neonConfig`, e.g. to reach a local
 * WebSocket relay in tests. Unset fields keep Neon's defaults.
 */
export interface NeonSettings {
  /** @default `ws` when the runtime has no global WebSocket (Node 20) */
  webSocketConstructor?: typeof neonConfig.webSocketConstructor;
  wsProxy?: string | ((host: string, port: number | string) => string);
  useSecureWebSocket?: boolean;
  pipelineTLS?: boolean;
  pipelineConnect?: "password" | false;
}
