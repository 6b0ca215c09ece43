import type { neonConfig } from "@neondatabase/serverless";

/**
 * Overrides of the Neon driver's (process-global) `neonConfig`, e.g. to reach a local
 * WebSocket relay in tests. Unset fields keep Neon's defaults.
 */
export interface NeonSettings {
  /** @default `ws`, whose errors name their cause (the runtime's own WebSocket reports only "network error") */
  webSocketConstructor?: typeof neonConfig.webSocketConstructor;
  wsProxy?: string | ((host: string, port: number | string) => string);
  useSecureWebSocket?: boolean;
  pipelineTLS?: boolean;
  pipelineConnect?: "password" | false;
}
