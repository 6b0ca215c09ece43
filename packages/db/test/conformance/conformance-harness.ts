import { randomUUID } from "node:crypto";
import { contentSha256 } from "@context-cleaner/assembler/internal";
import type { Database } from "../../src/database-types";
import type { DigestRowInput } from "../../src/repository-types";

/** What a conformance run needs from an engine. */
export interface ConformanceHarness {
  /** A migrated database. */
  database: Database;
  /** Runs statements in one transaction as the owner (a superuser here); rows of the last one. */
  ownerTransaction(statements: readonly string[]): Promise<Record<string, unknown>[]>;
  /** Releases everything the harness opened. */
  close(): Promise<void>;
}

/** A fresh org id per test keeps tests independent on a shared database. */
export function uniqueOrg(label: string): string {
  return `${label}-${randomUUID()}`;
}

/** A valid digest row; override any field. */
export function digestRow(overrides: Partial<DigestRowInput> = {}): DigestRowInput {
  const toolCallId = overrides.toolCallId ?? `call-${randomUUID()}`;
  const digest =
    overrides.digest ?? `[Condensed by context-cleaner] ${toolCallId}: Article 8 consent; $1,250,000`;
  return {
    threadId: "thread-1",
    toolCallId,
    kind: "digest",
    toolName: "read_document",
    provenanceArgs: { file_id: "cd_9f2", offset: 58_000 },
    contentSha256: contentSha256(`original content of ${toolCallId}`),
    digest,
    originalChars: 58_000,
    digestChars: [...digest].length,
    model: "claude-haiku",
    inputTokens: 15_000,
    outputTokens: 700,
    costUsd: 0.0185,
    ...overrides,
  };
}
