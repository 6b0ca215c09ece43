/**
 * The real services the functions' integration tests run against: the SQS emulator
 * (fauxqs, in-process on loopback) with a FIFO digest queue and its FIFO dead letters, a migrated
 * scratch Postgres database, LangGraph's checkpoint tables written by a real
 * `PostgresSaver` and read by a SELECT-only role, and the Neon WebSocket relay.
 */
import { randomBytes } from "node:crypto";
import type { SQSClient } from "@aws-sdk/client-sqs";
import type { Message } from "@context-cleaner/assembler";
import { toLangChain } from "@context-cleaner/assembler/langchain";
import { createDatabase, type Database } from "@context-cleaner/db";
import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { type NeonRelay, startNeonRelay } from "../../test/services/neon-relay";
import {
  createScratchDatabase,
  requireTestPostgresUrl,
  type ScratchDatabase,
} from "../../test/services/postgres";
import { type SqsEmulator, startSqsEmulator } from "../../test/services/sqs-emulator";

/** The queue's receives before dead letters, as in sst.config.ts. */
export const MAX_RECEIVE_COUNT = 5;

export interface FunctionServices {
  sqs: SQSClient;
  queueUrl: string;
  dlqUrl: string;
  /** A migrated scratch database (node-postgres). */
  database: Database;
  databaseUrl: string;
  /** Neon driver settings that reach `databaseUrl` through the relay. */
  neon: { wsProxy: () => string; useSecureWebSocket: false; pipelineTLS: false; pipelineConnect: false };
  relay: NeonRelay;
  /** The checkpoint tables' schema, and a URL of a role that can only SELECT them. */
  checkpointSchema: string;
  checkpointReaderUrl: string;
  /** The writer: a real PostgresSaver over the admin connection. */
  saver: PostgresSaver;
  close(): Promise<void>;
}

/** Starts everything; `label` keeps names apart between test files. */
export async function startFunctionServices(label: string): Promise<FunctionServices> {
  const fauxqs: SqsEmulator = await startSqsEmulator();
  const dlq = await fauxqs.createQueue(`${label}-dlq.fifo`, {
    FifoQueue: "true",
    ContentBasedDeduplication: "false",
  });
  const main = await fauxqs.createQueue(`${label}.fifo`, {
    FifoQueue: "true",
    ContentBasedDeduplication: "false",
    VisibilityTimeout: "60",
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: dlq.queueArn,
      maxReceiveCount: MAX_RECEIVE_COUNT,
    }),
  });
  const scratch: ScratchDatabase = await createScratchDatabase(requireTestPostgresUrl(), `cc_${label}`);
  const database = await createDatabase(scratch.url);
  await database.migrate();
  const target = new URL(scratch.url);
  const relay = await startNeonRelay({ host: target.hostname, port: Number(target.port || 5432) });

  const suffix = randomBytes(4).toString("hex");
  const checkpointSchema = `lg_${label}_${suffix}`.replaceAll("-", "_");
  const readerRole = `cc_reader_${suffix}`;
  const readerPassword = randomBytes(12).toString("hex");
  const admin = new pg.Pool({ connectionString: scratch.url, max: 4 });
  const saver = new PostgresSaver(admin, undefined, { schema: checkpointSchema });
  await saver.setup();
  await admin.query(`create role ${readerRole} login password '${readerPassword}'`);
  await admin.query(`alter role ${readerRole} set default_transaction_read_only = on`);
  await admin.query(`grant usage on schema "${checkpointSchema}" to ${readerRole}`);
  await admin.query(
    `grant select on "${checkpointSchema}".checkpoints, "${checkpointSchema}".checkpoint_blobs, "${checkpointSchema}".checkpoint_writes to ${readerRole}`,
  );
  const reader = new URL(scratch.url);
  reader.username = readerRole;
  reader.password = readerPassword;

  const sqs = fauxqs.client();
  return {
    sqs,
    queueUrl: main.queueUrl,
    dlqUrl: dlq.queueUrl,
    database,
    databaseUrl: scratch.url,
    neon: { wsProxy: relay.wsProxy, useSecureWebSocket: false, pipelineTLS: false, pipelineConnect: false },
    relay,
    checkpointSchema,
    checkpointReaderUrl: reader.toString(),
    saver,
    async close() {
      sqs.destroy();
      await fauxqs.stop();
      await relay.close();
      await database.close();
      await admin.query(`drop schema if exists "${checkpointSchema}" cascade`);
      await admin.query(`drop owned by ${readerRole}`).catch(() => undefined);
      await admin.end();
      await scratch.drop();
      const cluster = new pg.Client({ connectionString: requireTestPostgresUrl() });
      await cluster.connect();
      await cluster.query(`drop role if exists ${readerRole}`).catch(() => undefined);
      await cluster.end();
    },
  };
}

/**
 * Writes a thread's messages as the latest checkpoint of its root graph through the real
 * saver, with the org stamped into the checkpoint metadata (how a runtime makes the
 * thread directory see it) and the checkpoint's timestamp at `at`.
 */
export async function writeCheckpoint(
  saver: PostgresSaver,
  thread: { orgId: string; threadId: string; messages: readonly Message[]; at: Date },
): Promise<void> {
  const checkpoint = emptyCheckpoint();
  checkpoint.ts = thread.at.toISOString();
  checkpoint.channel_values = { messages: thread.messages.map((message) => toLangChain(message)) };
  checkpoint.channel_versions = { messages: 1 };
  await saver.put(
    { configurable: { thread_id: thread.threadId, checkpoint_ns: "" } },
    checkpoint,
    { source: "loop", step: 1, parents: {}, org_id: thread.orgId } as never,
    { messages: 1 },
  );
}
