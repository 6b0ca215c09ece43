import { describe, expect, it, vi } from "vitest";

// As for a worker installed without the turn-lock peek's package.
vi.mock("@upstash/redis", () => {
  throw new Error("Cannot find package '@upstash/redis'");
});

describe("createDigestDependencies", () => {
  it("loads without @upstash/redis: the client is loaded only when Redis is configured", async () => {
    const module = await import("./digest-dependencies");
    expect(module.createDigestDependencies).toBeTypeOf("function");
  });
});
