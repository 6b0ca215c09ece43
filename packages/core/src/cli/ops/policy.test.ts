import { createDatabase, createDigestRepository, type DigestRepository } from "@context-cleaner/db";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "#test/core/fakes/manual-clock";
import { runOpsCommand } from ".";
import type { OpsContext } from "./ops-context";

const NOW = new Date("2026-12-01T19:00:00.000Z");
let pglite: PGlite;
let repository: DigestRepository;

function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const ops: OpsContext = {
    io: { stdout: (text) => out.push(text), stderr: (text) => err.push(text), environment: {} },
    clock: manualClock(NOW),
    openDatabase: () => createDatabase("pglite://", { pglite }),
    openQueue: () => Promise.reject(new Error("no queue in these tests")),
    openDirectory: () => Promise.reject(new Error("no directory in these tests")),
  };
  return runOpsCommand([...argv, "--database", "pglite://"], ops.io, ops).then((code) => ({
    code,
    stdout: out.join(""),
    stderr: err.join(""),
  }));
}

beforeAll(async () => {
  pglite = await PGlite.create();
  const database = await createDatabase("pglite://", { pglite });
  await database.migrate();
  repository = createDigestRepository(database);
  const digest = "[Condensed by context-cleaner — original preserved and re-readable.] rent $1,250,000";
  await repository.upsertDigests(
    "shadow-co",
    ["t1", "t2"].map((threadId, index) => ({
      threadId,
      toolCallId: `call_${index}`,
      kind: "digest" as const,
      toolName: "read_document",
      provenanceArgs: { file_id: "cd_9f2", offset: 0 },
      contentSha256: `${"b".repeat(63)}${index}`,
      digest,
      originalChars: 40_000,
      digestChars: [...digest].length,
      model: null,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
    })),
  );
});

afterAll(async () => {
  await pglite?.close();
});

describe("context-cleaner policy", () => {
  it("get: an org without a row runs on the deployment's defaults", async () => {
    const result = await run(["policy", "get", "--org", "nobody"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("mode:         on (no policy row: the deployment's defaults)");
    expect(JSON.parse((await run(["policy", "get", "--org", "nobody", "--json"])).stdout)).toEqual({
      orgId: "nobody",
      policy: null,
    });
  });

  it("set: validated, stored with who and when, and the flags change only their fields", async () => {
    const first = await run([
      "policy",
      "set",
      "--org",
      "acme",
      "--by",
      "ops@example.com",
      "--mode",
      "shadow",
      "--max-calls",
      "4",
      "--tool-rules",
      '{"exclude":["run_sql"],"protectedArgs":[{"arg":"path","pattern":"^/pinned/"}]}',
    ]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("mode:         shadow");
    expect(first.stdout).toContain("set by:       ops@example.com at 2026-12-01T19:00:00.000Z");
    const second = await run([
      "policy",
      "set",
      "--org",
      "acme",
      "--by",
      "lead@example.com",
      "--at",
      "2026-12-02T08:00:00Z",
      "--daily-budget-usd",
      "0.5",
    ]);
    expect(second.code).toBe(0);
    expect(await repository.getOrgPolicy("acme")).toEqual({
      mode: "shadow",
      overrides: { maxCallsPerJob: 4, dailyBudgetUsd: 0.5 },
      toolRules: { exclude: ["run_sql"], protectedArgs: [{ arg: "path", pattern: "^/pinned/" }] },
      updatedBy: "lead@example.com",
      updatedAt: "2026-12-02T08:00:00.000Z",
    });
    // --policy gives the whole policy: what it leaves out goes back to the defaults.
    await run(["policy", "set", "--org", "acme", "--by", "lead@example.com", "--policy", '{"mode":"off"}']);
    expect((await repository.getOrgPolicy("acme"))?.overrides).toEqual({});
    expect((await repository.getOrgPolicy("acme"))?.mode).toBe("off");
  });

  it("set refuses a bad field with one clear error, exit 2, and stores nothing", async () => {
    for (const [flags, message] of [
      [["--mode", "paused"], /mode must be one of on, shadow, off/],
      [["--max-calls=-3"], /maxCallsPerJob must be an integer ≥ 0, got -3/],
      [["--max-calls", "many"], /--max-calls must be a number/],
      [["--tool-rules", '{"include":[""]}'], /toolRules\.include\[0\] must be a non-empty tool name/],
      [["--tool-rules", "{nope"], /--tool-rules must be JSON/],
      [
        ["--tool-rules", '{"protectedArgs":[{"arg":"path","pattern":"^(a+)+\\\\1$"}]}'],
        /toolRules\.protectedArgs\[0\]\.pattern has a backreference/,
      ],
    ] as const) {
      const result = await run(["policy", "set", "--org", "strict", "--by", "ops", ...flags]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    const noAuthor = await run(["policy", "set", "--org", "strict", "--mode", "off"]);
    expect(noAuthor.code).toBe(2);
    expect(noAuthor.stderr).toMatch(/policy set needs --by/);
    expect(await repository.getOrgPolicy("strict")).toBeNull();
  });

  it("set validates its arguments before it opens the database", async () => {
    let opened = 0;
    const err: string[] = [];
    const ops: OpsContext = {
      io: { stdout: () => {}, stderr: (text) => err.push(text), environment: {} },
      clock: manualClock(NOW),
      openDatabase: () => {
        opened++;
        return Promise.reject(new Error("the database must not be opened"));
      },
      openQueue: () => Promise.reject(new Error("no queue in these tests")),
      openDirectory: () => Promise.reject(new Error("no directory in these tests")),
    };
    for (const [flags, message] of [
      // No --database and no DATABASE_URL: the bad field is still what is reported.
      [["--mode", "paused"], /mode must be one of on, shadow, off/],
      [["--recency-exchanges", "1.5"], /recencyKeepExchanges must be an integer ≥ 0, got 1\.5/],
      [["--tool-rules", '{"exclude":[3]}'], /toolRules\.exclude\[0\]/],
      [["--policy", '{"mode":"on","colour":"red"}'], /colour is not a policy field/],
      [["--policy", '{"mode":"on"}', "--digest-cap", "10"], /digestCharCap must be an integer ≥ 200, got 10/],
    ] as const) {
      err.length = 0;
      const code = await runOpsCommand(
        ["policy", "set", "--org", "acme", "--by", "ops", ...flags],
        ops.io,
        ops,
      );
      expect(code).toBe(2);
      expect(err.join("")).toMatch(message);
      expect(err.join("")).not.toMatch(/database/);
    }
    // With a database named, a bad field still opens nothing.
    const code = await runOpsCommand(
      ["policy", "set", "--org", "acme", "--by", "ops", "--max-calls=-1", "--database", "pglite://"],
      ops.io,
      ops,
    );
    expect(code).toBe(2);
    expect(opened).toBe(0);
  });

  it("reset deletes the row: the defaults apply again", async () => {
    await repository.setOrgPolicy("temp", { mode: "off" }, { updatedBy: "ops", updatedAt: NOW });
    const result = await run(["policy", "reset", "--org", "temp"]);
    expect(result.stdout).toContain("policy deleted");
    expect(await repository.getOrgPolicy("temp")).toBeNull();
  });
});

describe("context-cleaner status --org", () => {
  it("shows the mode and, in shadow, what the org's digests would save", async () => {
    await repository.setOrgPolicy("shadow-co", { mode: "shadow" }, { updatedBy: "ops", updatedAt: NOW });
    const summary = await repository.summarizeOrgDigests("shadow-co");
    const saved = summary.originalChars - summary.digestChars;
    const text = await run(["status", "--org", "shadow-co"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("mode:         shadow");
    expect(text.stdout).toContain("digests:      2 in 2 threads");
    expect(text.stdout).toContain(`shadow saves: ${saved.toLocaleString("en-US")}`);
    const json = JSON.parse((await run(["status", "--org", "shadow-co", "--json"])).stdout);
    expect(json).toMatchObject({ orgId: "shadow-co", mode: "shadow", shadowCharsSaved: saved });
    const thread = await run(["status", "--org", "shadow-co", "--thread", "t1"]);
    expect(thread.stdout).toContain("mode:         shadow");
  });

  it("an org without a row is on, and reports plain chars saved", async () => {
    const text = await run(["status", "--org", "nobody-else"]);
    expect(text.stdout).toContain("mode:         on (no policy row");
    expect(text.stdout).toContain("chars saved:  0");
    expect(text.stdout).not.toContain("shadow");
  });
});
