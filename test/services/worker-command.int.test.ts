/**
 * Services tier: `context-cleaner worker` from the source tree as a process of its own
 * (test/services/worker-scenario.ts says what it does); the pack-and-install test runs the
 * same scenario with the packed command installed in a scratch app.
 */
import { fileURLToPath } from "node:url";
import { createDigestRepository, type DigestRepository } from "@context-cleaner/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FunctionServices, startFunctionServices } from "../../functions/test/services";
import { requireRedisUrl, startUpstashRelay, type UpstashRelay } from "./upstash-relay";
import { runWorkerScenario, startWorker, type WorkerCommand } from "./worker-scenario";

/** The command from source, as the published bin runs its build. */
const FROM_SOURCE: WorkerCommand = {
  command: process.execPath,
  args: [
    "--conditions=@context-cleaner/source",
    "--import",
    "tsx",
    fileURLToPath(new URL("../../packages/core/src/bin/context-cleaner.ts", import.meta.url)),
  ],
  cwd: fileURLToPath(new URL("../..", import.meta.url)),
};

let services: FunctionServices;
let repository: DigestRepository;
let upstash: UpstashRelay;

beforeAll(async () => {
  services = await startFunctionServices("worker-cmd");
  repository = createDigestRepository(services.database);
  upstash = await startUpstashRelay(requireRedisUrl());
});

afterAll(async () => {
  await upstash?.close();
  await services?.close();
});

describe("context-cleaner worker, a process of its own", () => {
  it("refuses a missing setting with exit code 2 before it reaches any service", async () => {
    const worker = startWorker(FROM_SOURCE, ["--queue-url", services.queueUrl], {
      DATABASE_URL: services.databaseUrl,
    });
    expect(await worker.exited).toBe(2);
    expect(worker.stderr()).toBe(
      "context-cleaner: worker needs --checkpoint-database-url (or CHECKPOINT_DATABASE_URL)\n",
    );
    expect(worker.stdout()).toBe("");
  });

  it("digests a published turn, dead-letters a poison record, and exits 0 on SIGTERM", async () => {
    await runWorkerScenario(FROM_SOURCE, services, repository, upstash);
  });
});
