import { describe, expect, it } from "vitest";
import { recordingLogger, recordingMetrics } from "#test/core/fakes/recorders";
import { createDigestDependencies } from "./digest-dependencies";
import { messageTableFromEnvironment } from "./message-table-config";

describe("messageTableFromEnvironment", () => {
  it("is undefined without CHECKPOINT_MESSAGE_TABLE: the functions read LangGraph's tables", () => {
    expect(messageTableFromEnvironment({ CHECKPOINT_SCHEMA: "lg" })).toBeUndefined();
  });

  it("reads the table and every column the environment names, leaving the rest to the reader's defaults", () => {
    expect(
      messageTableFromEnvironment({
        CHECKPOINT_MESSAGE_TABLE: "app.thread_messages",
        CHECKPOINT_MESSAGES_COLUMN: "history",
        CHECKPOINT_ORG_ID_COLUMN: "org_id",
        CHECKPOINT_UPDATED_AT_COLUMN: "",
      }),
    ).toEqual({ table: "app.thread_messages", messagesColumn: "history", orgIdColumn: "org_id" });
  });

  it("refuses columns named without the table", () => {
    expect(() => messageTableFromEnvironment({ CHECKPOINT_ORG_ID_COLUMN: "org_id" })).toThrow(
      "CHECKPOINT_ORG_ID_COLUMN set without CHECKPOINT_MESSAGE_TABLE",
    );
  });
});

describe("createDigestDependencies with a message table", () => {
  const base = {
    databaseUrl: "postgres://nobody@127.0.0.1:9/none",
    checkpointDatabaseUrl: "postgres://reader@127.0.0.1:9/none",
    queueUrl: "https://sqs.example/q.fifo",
    deadLetterQueueUrl: "https://sqs.example/dlq.fifo",
    sqs: { send: async () => ({}) } as never,
    logger: recordingLogger(),
    metrics: recordingMetrics(),
    disabled: () => false,
  };

  it("refuses, before opening a database, a table without an org column when owners come from the checkpoint store", async () => {
    await expect(
      createDigestDependencies({ ...base, messageTable: { table: "app.thread_messages" } }),
    ).rejects.toThrow(/names no org column \(CHECKPOINT_ORG_ID_COLUMN\).*THREAD_OWNER_SOURCE=table/);
  });

  it("refuses a table name that is not a plain identifier before opening a database", async () => {
    await expect(
      createDigestDependencies({ ...base, messageTable: { table: "app.messages; drop table x" } }),
    ).rejects.toThrow(/table: must be name or schema\.name of plain identifiers/);
  });
});
