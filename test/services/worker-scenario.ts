/**
 * The services tier's run of `context-cleaner worker` as a process of its own, configured
 * only by flags and environment variables, against the tier's Postgres (digests, and
 * LangGraph's checkpoint tables read by a SELECT-only role), Redis (the turn-lock peek,
 * through the Upstash REST relay) and the SQS emulator at an explicit `--endpoint`: a turn
 * event published by the runtime's publisher is digested, a poison record reaches the dead
 * letters, SIGTERM ends the process with exit code 0. The source tree's command and the
 * packed one installed in a scratch app both run it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { ReceiveMessageCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import { createTurnEventPublisher } from "@context-cleaner/assembler/events";
import type { DigestRepository } from "@context-cleaner/db";
import { expect } from "vitest";
import { type FunctionServices, writeCheckpoint } from "../../functions/test/services";
import { heavyThread, rawToolChars } from "../../packages/core/test/fixtures/threads";
import type { UpstashRelay } from "./upstash-relay";

/** How to start the command: the executable and the arguments before `worker`'s own, and where. */
export interface WorkerCommand {
  command: string;
  args: string[];
  cwd: string;
}

export interface Worker {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts `context-cleaner worker` with only `env` (and AWS test credentials) and `args`. */
export function startWorker(worker: WorkerCommand, args: string[], env: Record<string, string>): Worker {
  const child = spawn(worker.command, [...worker.args, "worker", ...args], {
    cwd: worker.cwd,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      AWS_ACCESS_KEY_ID: "test",
      AWS_SECRET_ACCESS_KEY: "test",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function logEntries(worker: Worker): { level: string; message: string; [key: string]: unknown }[] {
  return worker
    .stdout()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line));
}

/** The scenario above; `services`, `repository` and `upstash` are the caller's, already started. */
export async function runWorkerScenario(
  command: WorkerCommand,
  services: FunctionServices,
  repository: DigestRepository,
  upstash: UpstashRelay,
): Promise<void> {
  const thread = heavyThread();
  const orgId = `org-${randomUUID()}`;
  const threadId = `lease-${randomUUID()}`;
  await writeCheckpoint(services.saver, {
    orgId,
    threadId,
    messages: thread.messages,
    at: new Date("2026-11-30T10:00:00Z"),
  });
  const endpoint = new URL(services.queueUrl).origin;
  const worker = startWorker(
    command,
    ["--endpoint", endpoint, "--dlq-url", services.dlqUrl, "--wait-time", "2", "--visibility-timeout", "600"],
    {
      DIGEST_QUEUE_URL: services.queueUrl,
      DATABASE_URL: services.databaseUrl,
      CONTEXT_CLEANER_DB_DRIVER: "pg",
      CHECKPOINT_DATABASE_URL: services.checkpointReaderUrl,
      CHECKPOINT_SCHEMA: services.checkpointSchema,
      UPSTASH_REDIS_REST_URL: upstash.url,
      UPSTASH_REDIS_REST_TOKEN: upstash.token,
      AWS_REGION: "us-east-1",
    },
  );
  try {
    await until("the worker to start", async () =>
      logEntries(worker).some((entry) => entry.message === "worker started") ? true : undefined,
    );
    const publisher = createTurnEventPublisher({
      queueUrl: services.queueUrl,
      sqs: services.sqs,
      logger: { warn: () => {} },
    });
    const published = await publisher.publishTurnEnded({
      orgId,
      threadId,
      rawToolChars: rawToolChars(thread.messages),
      turnEndedAt: new Date("2026-11-30T10:00:00Z"),
    });
    expect(published.status).toBe("sent");
    await services.sqs.send(
      new SendMessageCommand({
        QueueUrl: services.queueUrl,
        MessageBody: "not a turn event",
        MessageGroupId: "poison",
        MessageDeduplicationId: randomUUID(),
      }),
    );

    const pass = await until("the pass record", async () => {
      const record = await repository.getPass(orgId, threadId);
      return record?.status === "done" ? record : undefined;
    });
    // Covered as of the pass's start (the worker's clock), which is after the turn's end.
    expect(pass.coveredTurnEndedAt?.getTime()).toBeGreaterThanOrEqual(Date.parse("2026-11-30T10:00:00.000Z"));
    expect((await repository.loadThreadDigests(orgId, threadId)).size).toBeGreaterThan(10);
    const dead = await until("the poison record in the dead letters", async () => {
      const output = await services.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: services.dlqUrl, MaxNumberOfMessages: 10 }),
      );
      return output.Messages?.length ? output.Messages : undefined;
    });
    expect(dead.map((message) => message.Body)).toEqual(["not a turn event"]);
  } finally {
    worker.child.kill("SIGTERM");
  }
  expect(await worker.exited).toBe(0);
  const messages = logEntries(worker).map((entry) => entry.message);
  expect(messages).toContain("digest job finished");
  expect(messages).toContain("poison record: not a valid turn event, for the dead letters");
  expect(messages.at(-1)).toBe("worker stopped");
  expect(
    logEntries(worker)
      .filter((entry) => entry.level === "ERROR")
      .map((entry) => entry.message),
  ).toEqual(["poison record: not a valid turn event, for the dead letters"]);
}
