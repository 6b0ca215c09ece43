import { lambdaContext } from "@context-cleaner/core/worker";
import { describe, expect, it } from "vitest";
import { lazyHandler } from "./lazy-handler";

describe("lazyHandler", () => {
  const context = lambdaContext({ functionName: "f", timeoutMs: 1_000 });

  it("builds on the first invocation only, then reuses the handler", async () => {
    let builds = 0;
    const handler = lazyHandler(async () => {
      builds += 1;
      return async (event: number) => event * 2;
    });
    expect(builds).toBe(0);
    expect(await Promise.all([handler(1, context), handler(2, context)])).toEqual([2, 4]);
    expect(await handler(3, context)).toBe(6);
    expect(builds).toBe(1);
  });

  it("does not keep a failed build: that invocation fails, the next builds again", async () => {
    let builds = 0;
    const handler = lazyHandler(async () => {
      builds += 1;
      if (builds === 1) throw new Error("database unreachable");
      return async () => "ok";
    });
    await expect(handler(undefined, context)).rejects.toThrow("database unreachable");
    expect(await handler(undefined, context)).toBe("ok");
    expect(builds).toBe(2);
  });
});

describe("lambdaContext", () => {
  it("counts the remaining time down from the timeout", () => {
    let now = 1_000;
    const context = lambdaContext({ functionName: "digest", timeoutMs: 300_000, now: () => now });
    expect(context.getRemainingTimeInMillis()).toBe(300_000);
    now += 299_000;
    expect(context.getRemainingTimeInMillis()).toBe(1_000);
    now += 5_000;
    expect(context.getRemainingTimeInMillis()).toBe(0);
    expect(context.functionName).toBe("digest");
    expect(() => context.succeed("x")).toThrow(/not supported/);
  });
});
