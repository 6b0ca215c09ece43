import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidThreadError, type Message } from "@context-cleaner/assembler";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import { cleanThread } from "./clean-thread";

let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "cc-clean-"));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

const thread = (seed: number) =>
  buildHeavyThread({
    name: `clean-${seed}`,
    seed,
    titles: ["Ground Lease"],
    documentChars: 60_000,
    pageChars: 12_000,
  }).messages;

describe("cleanThread", () => {
  it("runs on an in-memory store by default: each clean starts empty", async () => {
    const messages = thread(1);
    const first = await cleanThread(messages, { digester: createExtractiveDigester() });
    const second = await cleanThread(messages, { digester: createExtractiveDigester() });
    expect(first.passes[0]?.digestsWritten).toBeGreaterThan(0);
    expect(second.passes[0]?.digestsWritten).toBe(first.passes[0]?.digestsWritten);
    expect(second.view.report.substitutions).toBe(first.view.report.substitutions);
  });

  it("on a database kept between cleans, a later clean of another thread still runs its pass", async () => {
    const databaseUrl = `pglite://${join(directory, "pglite")}`;
    const first = await cleanThread(thread(1), { digester: createExtractiveDigester(), databaseUrl });
    const second = await cleanThread(thread(2), { digester: createExtractiveDigester(), databaseUrl });
    expect(first.passes[0]?.digestsWritten).toBeGreaterThan(0);
    expect(second.passes[0]).toMatchObject({ status: "done" });
    expect(second.passes[0]?.digestsWritten).toBeGreaterThan(0);
    expect(second.view.report.substitutions).toBe(second.passes[0]?.digestsWritten);
  });
  it.each([
    ["a BigInt", (args: Record<string, unknown>) => Object.assign(args, { offset: 12_000n }), "args.offset"],
    ["a cycle", (args: Record<string, unknown>) => Object.assign(args, { self: args }), "args.self"],
  ])("refuses args holding %s with an error naming the message and field", async (_label, poison, path) => {
    const messages = structuredClone(thread(1)) as Message[];
    const index = messages.findIndex((message) => message.role === "assistant" && message.toolCalls?.length);
    const call = (messages[index] as Extract<Message, { role: "assistant" }>).toolCalls?.[0];
    poison(call?.args as Record<string, unknown>);
    const error = await cleanThread(messages, { digester: createExtractiveDigester() }).catch(
      (caught) => caught,
    );
    expect(error).toBeInstanceOf(InvalidThreadError);
    expect(error).toMatchObject({ index, field: `toolCalls[0].${path}` });
    expect((error as Error).message).toContain(`messages[${index}].toolCalls[0].${path}`);
  });
});
