import { createServer } from "node:http";
import { connect, type Socket } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";

/** A running relay: point the Neon driver's `wsProxy` at `wsProxy`. */
export interface NeonRelay {
  port: number;
  /** For `neonConfig.wsProxy`: `127.0.0.1:<port>/v2`. */
  wsProxy: () => string;
  /** Connections relayed so far (proof the Neon path really went through the relay). */
  connections(): number;
  close(): Promise<void>;
}

/**
 * A test-harness stand-in for Neon's WebSocket proxy: each WebSocket on `/v2` becomes a
 * TCP connection to the local Postgres, bytes relayed both ways unchanged (the Neon
 * driver speaks the plain Postgres protocol inside the WebSocket when TLS is off).
 */
export async function startNeonRelay(target: { host: string; port: number }): Promise<NeonRelay> {
  const server = createServer((_request, response) => {
    response.writeHead(404).end();
  });
  const webSockets = new WebSocketServer({ server, path: "/v2" });
  const sockets = new Set<Socket>();
  let connections = 0;
  webSockets.on("connection", (webSocket: WebSocket) => {
    connections += 1;
    const tcp = connect(target.port, target.host);
    sockets.add(tcp);
    tcp.on("data", (chunk) => {
      if (webSocket.readyState === webSocket.OPEN) {
        webSocket.send(chunk);
      }
    });
    tcp.on("close", () => {
      sockets.delete(tcp);
      webSocket.close();
    });
    tcp.on("error", () => webSocket.close());
    webSocket.on("message", (data: Buffer | ArrayBuffer | Buffer[]) => {
      tcp.write(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer));
    });
    webSocket.on("close", () => tcp.end());
    webSocket.on("error", () => tcp.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") {
    throw new Error("relay did not bind a port");
  }
  const port = address.port;
  return {
    port,
    wsProxy: () => `127.0.0.1:${port}/v2`,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) {
        socket.destroy();
      }
      for (const client of webSockets.clients) {
        client.terminate();
      }
      await new Promise<void>((resolve) => webSockets.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
