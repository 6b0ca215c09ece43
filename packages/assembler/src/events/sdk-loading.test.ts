import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);

// A module resolution hook that refuses the SQS SDK, as if it were not installed.
const BLOCKING_HOOK = `
export async function resolve(specifier, context, next) {
  if (specifier === "@aws-sdk/client-sqs" || specifier.startsWith("@aws-sdk/client-sqs/")) {
    throw new Error("blocked: " + specifier);
  }
  return next(specifier, context);
}
`;

// What the child process reports, as one JSON line.
const PROBE = `
const report = {};
const events = await import("@context-cleaner/assembler/events");
report.lockKey = events.turnLockKey("org_1", "thread_1");
report.lockModuleLoaded = typeof events.holdTurnLock === "function";
report.sdk = await import("@aws-sdk/client-sqs").then(() => "loaded", (error) => error.message);
const publisher = events.createTurnEventPublisher({
  queueUrl: "https://sqs.eu-west-1.amazonaws.com/123456789012/digest.fifo",
  sqs: { send: async () => ({ MessageId: "m-1", $metadata: {} }) },
  logger: { warn() {} },
});
const outcome = await publisher.publishTurnEnded({
  orgId: "org_1", threadId: "thread_1", rawToolChars: 500000, turnEndedAt: "2026-03-01T12:00:00Z",
});
report.publish = { status: outcome.status, reason: outcome.reason, error: outcome.error?.message };
console.log(JSON.stringify(report));
`;

let directory: string;
let register: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "sdk-loading-"));
  const hook = join(directory, "block-sqs.mjs");
  await writeFile(hook, BLOCKING_HOOK);
  register = join(directory, "register.mjs");
  await writeFile(
    register,
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hook).href)});\n`,
  );
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe("./events without @aws-sdk/client-sqs installed", () => {
  it("imports, and serves the turn lock; only a publish needs the SDK, and fails softly without it", async () => {
    // tsx first (TypeScript sources), the blocking hook last: the last registered hook resolves first.
    const { stdout } = await run(
      process.execPath,
      [
        "--conditions=@context-cleaner/source",
        "--import",
        "tsx",
        "--import",
        register,
        "--input-type=module",
        "--eval",
        PROBE,
      ],
      { cwd: process.cwd(), env: { ...process.env, CONTEXT_CLEANER_DISABLED: "" } },
    );
    const report = JSON.parse(stdout.trim().split("\n").at(-1) as string);
    expect(report.lockKey).toBe("context-cleaner:turn-lock:org_1:thread_1");
    expect(report.lockModuleLoaded).toBe(true);
    // The hook really blocks the SDK in that process …
    expect(report.sdk).toBe("blocked: @aws-sdk/client-sqs");
    // … so a publish, which must build a SendMessageCommand, reports the failed load.
    expect(report.publish).toEqual({
      status: "failed",
      reason: "send_error",
      error: "blocked: @aws-sdk/client-sqs",
    });
  });
});
