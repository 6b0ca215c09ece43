import { assembleModelView, type Message } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { filler, threadBuilder } from "#test/core/fixtures/golden-threads";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import { DigestModelError, InvalidPayloadError } from "../errors";
import type { DigestModel, DigestRequest, Metric } from "../ports";
import type { DigestJobPorts } from "./job-context";
import type { DigestJobOptions } from "./options";
import { type DigestJobPayload, parseDigestJobPayload } from "./payload";
import { runDigestJob } from "./run-digest-job";

/** The ports of one test job and its options, split the way {@link runDigestJob} takes them. */
type DigestJobDependencies = DigestJobPorts & { options?: Partial<DigestJobOptions> };

function runJob(payload: DigestJobPayload, { options, ...ports }: DigestJobDependencies) {
  return runDigestJob(payload, ports, options);
}

const fixture = buildHeavyThread({
  name: "lease-and-credit",
  seed: 11,
  titles: ["Ground Lease — 445 W 35th", "Credit Agreement", "Guaranty"],
  documentChars: 90_000,
  pageChars: 15_000,
});
const rawToolChars = fixture.messages
  .filter((message) => message.role === "tool")
  .reduce((sum, message) => sum + (message.content as string).length, 0);
const at = new Date("2026-11-30T10:00:00.000Z");

const storage = usePgliteRepository();

let threadCounter = 0;
function setup(
  overrides: Partial<DigestJobDependencies> = {},
  messages: readonly Message[] = fixture.messages,
) {
  const threadId = `thread-${++threadCounter}`;
  const metrics: Metric[] = [];
  const dependencies: DigestJobDependencies = {
    checkpoints: createInMemoryCheckpointReader(new Map([[threadId, messages]])),
    store: storage.repository,
    digester: createExtractiveDigester(),
    clock: fixedClock(at),
    metrics: { record: (metric) => metrics.push(metric) },
    ...overrides,
  };
  const payload = { orgId: `org-${threadCounter}`, threadId, rawToolChars, turnEndedAt: at.toISOString() };
  return { threadId, payload, dependencies, metrics };
}

/** A digester that records its requests and delegates to the extractive one. */
function recordingDigester(costUsd = 0): DigestModel & { requests: DigestRequest[] } {
  const inner = createExtractiveDigester();
  const requests: DigestRequest[] = [];
  return {
    id: "recording",
    requests,
    estimateCostUsd: () => costUsd,
    async digest(request) {
      requests.push(request);
      const result = await inner.digest(request);
      return { ...result, model: "recording", costUsd };
    },
  };
}

describe("runDigestJob", () => {
  it("digests consumed pages and supersedes searches, and the assembler substitutes every row", async () => {
    const { payload, dependencies } = setup();
    const outcome = await runJob(payload, dependencies);
    expect(outcome.status).toBe("done");
    expect(outcome.digestsWritten).toBeGreaterThan(5);
    const digests = await storage.repository.loadThreadDigests(payload.orgId, payload.threadId);
    expect(digests.size).toBe(outcome.digestsWritten);
    const kinds = new Set([...digests.values()].map((entry) => entry.kind));
    expect(kinds).toEqual(new Set(["digest", "superseded-search"]));
    const view = assembleModelView(fixture.messages, digests);
    expect(view.report.stale).toBe(0);
    expect(view.report.substitutions).toBe(digests.size);
    expect(view.report.assembledChars).toBeLessThan(view.report.rawChars * 0.7);
  });

  it("never digests protected results: the wall, the interrupt, the memory save, the ledger first page", async () => {
    const { payload, dependencies } = setup();
    await runJob(payload, dependencies);
    const digests = await storage.repository.loadThreadDigests(payload.orgId, payload.threadId);
    const byId = new Map(
      fixture.messages.flatMap((message) => (message.role === "tool" ? [[message.toolCallId, message]] : [])),
    );
    for (const toolCallId of digests.keys()) {
      const message = byId.get(toolCallId);
      expect(message?.role).toBe("tool");
      if (message?.role !== "tool") continue;
      expect(["ask_user", "save_memory"]).not.toContain(message.toolName);
      expect(String(message.content)).not.toContain("TRACKED CHANGES");
    }
    const lastTool = [...fixture.messages].reverse().find((message) => message.role === "tool");
    expect(lastTool?.role === "tool" && digests.has(lastTool.toolCallId)).toBe(false);
  });

  it("is idempotent: a redelivered job skips as nothing new and a forced rerun writes and spends nothing", async () => {
    const digester = recordingDigester(0.01);
    const { payload, dependencies } = setup({ digester });
    const first = await runJob(payload, dependencies);
    const callsAfterFirst = digester.requests.length;
    const rowsBefore = await storage.repository.loadThreadDigests(payload.orgId, payload.threadId);
    const again = await runJob(payload, dependencies);
    expect(again).toMatchObject({ status: "skipped", reason: "nothing_new" });
    const later = { ...payload, turnEndedAt: new Date(at.getTime() + 60_000).toISOString() };
    const rerun = await runJob(later, dependencies);
    expect(rerun.status).toBe("skipped");
    expect(rerun.calls).toBe(0);
    expect(digester.requests.length).toBe(callsAfterFirst);
    const rowsAfter = await storage.repository.loadThreadDigests(payload.orgId, payload.threadId);
    expect([...rowsAfter.entries()]).toEqual([...rowsBefore.entries()]);
    const spend = await storage.repository.getSpend(payload.orgId, "2026-11-30");
    expect(spend.spentUsd).toBeCloseTo(first.costUsd, 6);
  });

  it("stops at maxCallsPerJob and leaves the rest for the next pass", async () => {
    const digester = recordingDigester();
    const { payload, dependencies } = setup({ digester, options: { maxCallsPerJob: 1 } });
    const outcome = await runJob(payload, dependencies);
    expect(digester.requests).toHaveLength(1);
    expect(outcome).toMatchObject({ status: "partial", reason: "call_cap" });
    expect(outcome.deferred).toBeGreaterThan(0);
    const pass = await storage.repository.getPass(payload.orgId, payload.threadId);
    expect(pass?.status).toBe("partial");
    expect(pass?.coveredTurnEndedAt).toBeNull();
  });

  it("reserves against the daily budget before each call and never overspends", async () => {
    const digester = recordingDigester(0.4);
    const { payload, dependencies } = setup({ digester, options: { dailyBudgetUsd: 1, maxPagesPerCall: 2 } });
    const outcome = await runJob(payload, dependencies);
    expect(digester.requests).toHaveLength(2);
    expect(outcome).toMatchObject({ status: "partial", reason: "budget" });
    const spend = await storage.repository.getSpend(payload.orgId, "2026-11-30");
    expect(spend.spentUsd).toBeLessThanOrEqual(1);
    expect(spend.reservedUsd).toBe(0);
  });

  it("keeps digests already paid for even when the pass saves less than minCharsPerPass", async () => {
    const digester = recordingDigester(0.4);
    const { payload, dependencies } = setup({
      digester,
      options: { dailyBudgetUsd: 0.5, maxPagesPerCall: 2, minCharsPerPass: 60_000 },
    });
    const outcome = await runJob(payload, dependencies);
    expect(digester.requests).toHaveLength(1);
    expect(outcome).toMatchObject({ status: "partial", reason: "budget" });
    const rows = await storage.repository.loadThreadDigests(payload.orgId, payload.threadId);
    expect(rows.size).toBe(outcome.digestsWritten);
    expect([...rows.values()].filter((entry) => entry.kind === "digest")).toHaveLength(2);
  });

  it("reuses a digest of the same content in the same org without a call", async () => {
    const digester = recordingDigester();
    const first = setup({ digester });
    await runJob(first.payload, first.dependencies);
    const calls = digester.requests.length;
    const second = setup({ digester });
    const outcome = await runJob({ ...second.payload, orgId: first.payload.orgId }, second.dependencies);
    expect(digester.requests.length).toBe(calls);
    expect(outcome.reused).toBeGreaterThan(0);
    expect(outcome.calls).toBe(0);
  });

  it("skips below the trigger without any I/O, and on the kill switch", async () => {
    const failing = new Proxy({} as DigestJobDependencies["store"], {
      get: () => () => {
        throw new Error("no I/O expected");
      },
    });
    const { payload, dependencies, metrics } = setup({ store: failing });
    await expect(runJob({ ...payload, rawToolChars: 10 }, dependencies)).resolves.toMatchObject({
      status: "skipped",
      reason: "below_trigger",
    });
    await expect(runJob(payload, { ...dependencies, options: { disabled: true } })).resolves.toMatchObject({
      status: "skipped",
      reason: "disabled",
    });
    expect(metrics.map((metric) => metric.dimensions?.reason)).toEqual(["below_trigger", "disabled"]);
  });

  it("skips a held turn lock with a requeue delay and records the pass for the sweep", async () => {
    const { payload, dependencies } = setup({ lock: { isHeld: async () => true } });
    const outcome = await runJob(payload, dependencies);
    expect(outcome).toMatchObject({ status: "skipped", reason: "turn_lock", requeueAfterSeconds: 60 });
    expect(await storage.repository.getPass(payload.orgId, payload.threadId)).toMatchObject({
      status: "skipped",
      reason: "turn_lock",
    });
  });

  it("writes nothing when the pass would save less than minCharsPerPass", async () => {
    const { payload, dependencies } = setup({ options: { minCharsPerPass: 10_000_000 } });
    const outcome = await runJob(payload, dependencies);
    expect(outcome).toMatchObject({ status: "skipped", reason: "below_min_chars", digestsWritten: 0 });
    expect((await storage.repository.loadThreadDigests(payload.orgId, payload.threadId)).size).toBe(0);
  });

  it("counts a failed digest call and keeps going with the other documents", async () => {
    let calls = 0;
    const inner = createExtractiveDigester();
    const flaky: DigestModel = {
      id: "flaky",
      async digest(request) {
        calls++;
        if (calls === 1) throw new DigestModelError("upstream 500", { reason: "server_error", status: 500 });
        return inner.digest(request);
      },
    };
    const { payload, dependencies } = setup({ digester: flaky });
    const outcome = await runJob(payload, dependencies);
    expect(outcome).toMatchObject({ status: "partial", reason: "digest_failed", failedCalls: 1 });
    expect(outcome.digestsWritten).toBeGreaterThan(0);
  });

  it("counts stale rows whose hash no longer matches the checkpoint", async () => {
    const { payload, dependencies } = setup();
    await runJob(payload, dependencies);
    const digests = await storage.repository.loadThreadDigests(payload.orgId, payload.threadId);
    const [staleId] = [...digests.keys()];
    const edited = fixture.messages.map((message) =>
      message.role === "tool" && message.toolCallId === staleId
        ? { ...message, content: `${message.content as string} (edited)` }
        : message,
    );
    const next = setup({}, edited);
    const outcome = await runJob(
      {
        ...next.payload,
        orgId: payload.orgId,
        threadId: payload.threadId,
        turnEndedAt: new Date(at.getTime() + 1).toISOString(),
      },
      {
        ...next.dependencies,
        checkpoints: createInMemoryCheckpointReader(new Map([[payload.threadId, edited]])),
      },
    );
    expect(outcome.stale).toBe(1);
  });

  it("digests a consumed page given as text blocks from its text, with its figures and character range", async () => {
    const page = `Exhibit B: base rent $1,250,000/yr with a 2.5% escalator; see §8.3.\n${filler("B1", 5_000)}`;
    const t = threadBuilder();
    t.user("Read the lease.");
    t.call("p0", "read_document", { file_id: "cd_9f2", offset: 0 }, "Page one.");
    t.call("p1", "read_document", { file_id: "cd_9f2", offset: 58_000 }, "");
    t.assistant("Read.");
    t.user("Next.");
    const messages = t.messages.map((message) =>
      message.role === "tool" && message.toolCallId === "p1"
        ? { ...message, content: [{ type: "text", text: page }] }
        : message,
    );
    const { payload, dependencies } = setup(
      { options: { minCharsPerPass: 0, recencyKeepExchanges: 0 } },
      messages,
    );
    const outcome = await runJob(payload, dependencies);
    expect(outcome).toMatchObject({ status: "done", digestsWritten: 1 });
    const row = (await storage.repository.loadThreadDigests(payload.orgId, payload.threadId)).get("p1");
    expect(row?.digest).toContain(`characters 58,000–${(58_000 + page.length).toLocaleString("en-US")}\n`);
    expect(row?.digest).toContain("figures verbatim: Exhibit B; $1,250,000; 2.5%; §8.3\n");
    expect(row?.digest).not.toContain('"type"');
    const view = assembleModelView(
      messages,
      await storage.repository.loadThreadDigests(payload.orgId, payload.threadId),
      { recencyKeepExchanges: 0 },
    );
    expect(view.report.substitutions).toBe(1);
  });

  it("writes no superseded-search stub for a result with no hit ids", async () => {
    const t = threadBuilder();
    t.user("Search.");
    t.call("s_1", "search_documents", { query: "lease" }, filler("no ids here", 5_000));
    t.call("s_2", "search_documents", { query: "lease amendment" }, `id: "doc_c"\n${filler("hit", 5_000)}`);
    t.call(
      "s_3",
      "search_documents",
      { query: "estoppel" },
      `id: "doc_a"\nid: "doc_b"\n${filler("hit", 5_000)}`,
    );
    t.assistant("Searched.");
    t.user("Next.");
    const { payload, dependencies } = setup(
      { options: { minCharsPerPass: 0, recencyKeepExchanges: 0 } },
      t.messages,
    );
    const outcome = await runJob(payload, dependencies);
    expect(outcome).toMatchObject({ status: "done", digestsWritten: 1 });
    const rows = await storage.repository.loadThreadDigests(payload.orgId, payload.threadId);
    expect([...rows.keys()]).toEqual(["s_2"]);
    expect(rows.get("s_2")?.digest).not.toContain("(none found)");
  });

  it("takes its payload parsed at the edge, which refuses an invalid one naming the field", () => {
    const invalid = { orgId: "o", threadId: "t", rawToolChars: "lots" };
    expect(() => parseDigestJobPayload(invalid)).toThrow(InvalidPayloadError);
    expect(() => parseDigestJobPayload(invalid)).toThrow(/rawToolChars/);
  });
});

describe("runDigestJob with read_original", () => {
  /** Command output (time-varying), then three small exchanges the next turn's wall keeps. */
  function commandThread(): Message[] {
    const t = threadBuilder();
    t.user("Check the servers.");
    for (const host of ["a", "b", "c", "d", "e"]) {
      t.call(
        `cmd_${host}`,
        "run_command",
        { cmd: `ssh ${host} df -h` },
        filler(`DF-${host} 12% 48,000 MB used`, 30_000),
      );
    }
    for (const step of ["x", "y", "z"]) t.call(`note_${step}`, "save_note", { text: step }, "ok");
    t.assistant("Checked.");
    return t.messages;
  }

  it("leaves command output raw by default", async () => {
    const { payload, dependencies } = setup({}, commandThread());
    await runJob(payload, dependencies);
    expect((await storage.repository.loadThreadDigests(payload.orgId, payload.threadId)).size).toBe(0);
  });

  it("digests it when the deployment enables read_original, each digest saying it is as of the call", async () => {
    const messages = commandThread();
    const { payload, dependencies } = setup({ options: { readOriginal: true } }, messages);
    const outcome = await runJob(payload, dependencies);
    expect(outcome.status).toBe("done");
    const digests = await storage.repository.loadThreadDigests(payload.orgId, payload.threadId);
    expect([...digests.keys()].sort()).toEqual(["cmd_a", "cmd_b", "cmd_c", "cmd_d", "cmd_e"]);
    for (const entry of digests.values()) {
      expect(entry.digest).toMatch(/^source: run_command · as it was at the time of the call$/m);
    }
    const { report } = assembleModelView([...messages, { role: "user", content: "Next." }], digests);
    expect(report.substitutions).toBe(5);
  });
});
