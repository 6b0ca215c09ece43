import { describe, expect, it } from "vitest";
import { createDigestRepository } from "../../src/digest-repository";
import { StorageError } from "../../src/errors";
import type { DigestRepository } from "../../src/repository-types";
import { contextDigest } from "../../src/schema/context-digest";
import { type ConformanceHarness, digestRow, uniqueOrg } from "./conformance-harness";

const NUL = "\u0000";

/** Whatever a caller passes, the repository answers with a storage error: never a raw driver error. */
async function storageErrorOf(work: Promise<unknown>): Promise<StorageError> {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(StorageError);
  return error as StorageError;
}

/** What values the repository accepts, and how it refuses the rest, on a real engine. */
export function describeValueRulesConformance(engine: string, harness: () => ConformanceHarness): void {
  const repository = (): DigestRepository => createDigestRepository(harness().database);

  describe(`stored values on ${engine}: U+0000 (NUL)`, () => {
    it.each([
      ["the tool call id", { toolCallId: `call${NUL}1` }, "toolCallId"],
      ["the thread id", { threadId: `thread${NUL}1` }, "threadId"],
      ["the tool name", { toolName: `read${NUL}document` }, "toolName"],
      ["the model", { model: `haiku${NUL}` }, "model"],
      ["the digest text", { digest: `rent${NUL}$5`, digestChars: 7 }, "digest"],
      ["a provenance arg", { provenanceArgs: { file_id: `cd${NUL}9f2` } }, "provenanceArgs"],
      ["a provenance arg's name", { provenanceArgs: { [`file${NUL}id`]: "cd_9f2" } }, "provenanceArgs"],
    ])(
      "refuses a row with a NUL in %s before the database, naming the field, storing nothing",
      async (_label, overrides, field) => {
        const org = uniqueOrg("nul");
        const error = await storageErrorOf(
          repository().upsertDigests(org, [digestRow({ toolCallId: "good" }), digestRow(overrides)]),
        );
        expect(error).toMatchObject({ code: "invalid_storage_input", retryable: false });
        expect(error.message).toContain(field);
        expect(error.message).not.toContain(NUL);
        expect((await repository().loadThreadDigests(org, "thread-1")).size).toBe(0);
      },
    );

    it("refuses a NUL in an org id or a thread id on every org-scoped method, without a query", async () => {
      const calls: Array<() => Promise<unknown>> = [
        () => repository().upsertDigests(`org${NUL}`, [digestRow()]),
        () => repository().loadThreadDigests(`org${NUL}`, "thread-1"),
        () => repository().loadThreadDigests(uniqueOrg("nul"), `thread${NUL}`),
        () => repository().deleteThreadDigests(uniqueOrg("nul"), `thread${NUL}`),
        () => repository().reserveSpend(`org${NUL}`, "2026-11-30", 1, 5),
        () => repository().recordPass(uniqueOrg("nul"), `thread${NUL}`, { status: "done", at: new Date() }),
        () => repository().getPass(uniqueOrg("nul"), `thread${NUL}`),
      ];
      for (const call of calls) {
        const error = await storageErrorOf(call());
        expect(error.retryable).toBe(false);
        expect(error.message).not.toMatch(/select|insert|params/i);
      }
    });

    it("maps a value the engine itself refuses (SQLSTATE class 22) to a non-retryable storage error without SQL or content", async () => {
      const org = uniqueOrg("class-22");
      const secret = "confidential clause";
      const error = await storageErrorOf(
        harness().database.withOrganization(org, (transaction) =>
          transaction.insert(contextDigest).values({
            ...digestRow({ digest: `${secret}${NUL}`, digestChars: 20 }),
            orgId: org,
            costMicroUsd: 0,
          }),
        ),
      );
      expect(error).toMatchObject({ code: "data_exception", retryable: false });
      expect(error.message).toMatch(/SQLSTATE 22/);
      expect(error.message).not.toMatch(/insert|params|context_digest/i);
      expect(error.message).not.toContain(secret);
    });
  });
  describe(`stored values on ${engine}: ids and counts`, () => {
    it.each([
      ["a plain id", true, "acme"],
      ["200 bytes of UTF-8", true, "é".repeat(100)],
      ["201 ASCII chars", false, "a".repeat(201)],
      ["surrounding spaces", false, "  acme  "],
      ["a trailing newline", false, "acme\n"],
      ["a tab inside", false, "ac\tme"],
      ["a lone surrogate", false, "ac\ud800me"],
    ])("an org id with %s: accepted %s, never trimmed", async (_label, accepted, orgId) => {
      const written = repository().recordPass(orgId, "thread-1", { status: "done", at: new Date() });
      if (accepted) {
        await written;
        expect((await repository().getPass(orgId, "thread-1"))?.orgId).toBe(orgId);
        return;
      }
      const error = await storageErrorOf(written);
      expect(error).toMatchObject({ code: "invalid_storage_input", retryable: false });
      expect(error.message).toContain("orgId");
    });

    it.each([
      ["a plain id", true, "thread-42"],
      ["500 chars", true, "t".repeat(500)],
      ["501 chars", false, "t".repeat(501)],
      ["a leading space", false, " thread-42"],
      ["a carriage return", false, "thread\r42"],
    ])("a thread id with %s: accepted %s, never trimmed", async (_label, accepted, threadId) => {
      const org = uniqueOrg("thread-id");
      const calls = [
        () => repository().recordPass(org, threadId, { status: "done", at: new Date() }),
        () => repository().upsertDigests(org, [digestRow({ threadId })]),
        () => repository().loadThreadDigests(org, threadId),
      ];
      for (const call of calls) {
        if (accepted) await call();
        else expect((await storageErrorOf(call())).message).toContain("threadId");
      }
    });

    it("refuses a tool call id or provenance arg the engine would store altered or refuse (a lone surrogate)", async () => {
      const org = uniqueOrg("surrogate");
      for (const overrides of [
        { toolCallId: "call-\ud800" },
        { provenanceArgs: { file_id: "cd\udc009f2" } },
      ]) {
        const error = await storageErrorOf(repository().upsertDigests(org, [digestRow(overrides)]));
        expect(error).toMatchObject({ code: "invalid_storage_input", retryable: false });
      }
      expect((await repository().loadThreadDigests(org, "thread-1")).size).toBe(0);
    });

    it("refuses counts beyond a Postgres integer (2^31 − 1) before the database", async () => {
      const org = uniqueOrg("count");
      await repository().recordPass(org, "t", { status: "done", rawToolChars: 2 ** 31 - 1, at: new Date() });
      const error = await storageErrorOf(
        repository().recordPass(org, "t", { status: "done", rawToolChars: 2 ** 31, at: new Date() }),
      );
      expect(error).toMatchObject({ code: "invalid_storage_input", retryable: false });
      expect(error.message).toContain("rawToolChars");
    });
  });
}
