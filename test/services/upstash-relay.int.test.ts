import { Redis } from "@upstash/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireRedisUrl, startUpstashRelay, type UpstashRelay } from "./upstash-relay";

let relay: UpstashRelay;

beforeAll(async () => {
  relay = await startUpstashRelay(requireRedisUrl());
});

afterAll(async () => {
  await relay?.close();
});

function client(options: { token?: string; base64?: boolean; autoPipeline?: boolean } = {}): Redis {
  return new Redis({
    url: relay.url,
    token: options.token ?? relay.token,
    responseEncoding: options.base64 === false ? false : "base64",
    enableAutoPipelining: options.autoPipeline ?? false,
    enableTelemetry: false,
    retry: false,
  });
}

describe("the Upstash REST relay, driven by the real @upstash/redis client", () => {
  it("runs single commands, with and without base64 replies", async () => {
    for (const base64 of [true, false]) {
      const redis = client({ base64 });
      expect(await redis.set("relay:text", "§ 8.3 — €1,250,000")).toBe("OK");
      expect(await redis.get("relay:text")).toBe("§ 8.3 — €1,250,000");
      expect(await redis.del("relay:text")).toBe(1);
      expect(await redis.get("relay:text")).toBeNull();
    }
  });

  it("runs pipelines (also the client's auto-pipelining) and MULTI/EXEC transactions", async () => {
    const pipeline = client().pipeline().set("relay:a", "1").incr("relay:a").get("relay:a");
    expect(await pipeline.exec()).toEqual(["OK", 2, 2]);
    expect(
      await client().multi().set("relay:b", "x").exists("relay:b", "relay:none").del("relay:b").exec(),
    ).toEqual(["OK", 1, 1]);
    // Auto-pipelining batches concurrent reads (and, apart, writes) into /pipeline requests.
    const auto = client({ autoPipeline: true });
    expect(await auto.set("relay:c", "y")).toBe("OK");
    expect(await Promise.all([auto.get("relay:c"), auto.exists("relay:c"), auto.get("relay:a")])).toEqual([
      "y",
      1,
      2,
    ]);
    expect(await auto.del("relay:a", "relay:c")).toBe(2);
  });

  it("answers a Redis error as the client expects, and refuses a wrong token", async () => {
    await expect(client().eval("return redis.call('NOPE')", [], [])).rejects.toThrow(
      /Unknown Redis command|NOPE/i,
    );
    await expect(client({ token: "wrong" }).get("relay:any")).rejects.toThrow(/Unauthorized/);
  });
});
