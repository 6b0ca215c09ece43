import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { Redis } from "ioredis";

/** The services tier's Redis URL (`test/services/run.sh` exports it). @throws when unset. */
export function requireRedisUrl(): string {
  const url = process.env.REDIS_URL;
  if (!url) throw new Error("REDIS_URL is not set: run the services tier with `npm run test:services`.");
  return url;
}

/** A running relay: give `url` and `token` to `new Redis({ url, token })` of `@upstash/redis`. */
export interface UpstashRelay {
  url: string;
  token: string;
  close(): Promise<void>;
}

type Command = (string | number)[];
type Reply = Buffer | number | null | Reply[];

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

/**
 * A stand-in for Upstash's REST API in front of a local Redis: `POST /` runs one command
 * (`["SET","k","v"]`), `/pipeline` a list, `/multi-exec` a list in MULTI/EXEC. It checks
 * the Bearer token and, under `Upstash-Encoding: base64`, answers bulk strings in base64,
 * as the real service does for the client's default encoding.
 */
export async function startUpstashRelay(redisUrl: string, token = "relay-token"): Promise<UpstashRelay> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const server = createServer(async (request, response) => {
    const send = (status: number, payload: unknown) => {
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(payload));
    };
    if (request.headers.authorization !== `Bearer ${token}`) return send(401, { error: "Unauthorized" });
    const base64 = request.headers["upstash-encoding"] === "base64";
    const encode = (reply: Reply): unknown =>
      Buffer.isBuffer(reply)
        ? reply.toString(base64 ? "base64" : "utf8")
        : Array.isArray(reply)
          ? reply.map(encode)
          : reply;
    const outcome = (error: Error | null | undefined, reply: unknown) =>
      error ? { error: error.message } : { result: encode(reply as Reply) };
    const body = (await readJson(request)) as Command | Command[];
    const path = new URL(request.url ?? "/", "http://relay").pathname;
    if (path === "/pipeline" || path === "/multi-exec") {
      const commands = body as Command[];
      const batch = path === "/pipeline" ? redis.pipeline() : redis.multi();
      for (const [name, ...args] of commands) batch.callBuffer(String(name), ...args.map(String));
      const results = (await batch.exec()) ?? [];
      return send(
        200,
        results.map(([error, reply]) => outcome(error, reply)),
      );
    }
    const [name, ...args] = body as Command;
    try {
      return send(200, outcome(null, await redis.callBuffer(String(name), ...args.map(String))));
    } catch (error) {
      return send(400, { error: (error as Error).message });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      redis.disconnect();
    },
  };
}
