import { InvalidOptionError, type Message } from "@context-cleaner/assembler";
import { decodePageCursor, encodePageCursor } from "@context-cleaner/db/internal";
import {
  CHECKPOINT_READ_REASONS,
  CheckpointReadError,
  THREAD_FILE_REASONS,
  ThreadFileError,
} from "../errors";
import type {
  ActiveThreadsPage,
  ActiveThreadsQuery,
  CheckpointReader,
  ThreadDirectory,
  ThreadOwner,
  ThreadOwnership,
} from "../ports";
import { THREAD_FILE_FORMATS, type ThreadFileFormat, threadFromJson } from "../thread-file/thread-file";
import { checkpointPool, type QueryPool, SQL_IDENTIFIER } from "./query-pool";
import { safeTimestampSql } from "./safe-timestamp";

/**
 * Options of {@link createMessageTableReader}: exactly one of `pool` or `connectionString`,
 * the table (or view) and its columns. Every name is a plain SQL identifier.
 */
export interface MessageTableReaderOptions {
  /** A pool owned by the caller (not ended by `close()`). */
  pool?: QueryPool;
  /**
   * A connection string, meant for a role that can only SELECT the table; the reader then
   * owns a `pg` pool whose sessions are read-only, ended by `close()`.
   */
  connectionString?: string;
  /** The table or view holding one row per thread: `name` or `schema.name`. */
  table: string;
  /** @default "thread_id" */
  threadIdColumn?: string;
  /**
   * The thread's messages as JSON (`jsonb`, `json` or `text`): an array, or an object with a
   * `messages` array, in any format the `context-cleaner` CLI reads (neutral, LangChain
   * stored messages, Anthropic Messages, OpenAI Chat Completions). @default "messages"
   */
  messagesColumn?: string;
  /** The format of every row's messages, instead of detecting it per row. @default detected */
  format?: ThreadFileFormat;
  /**
   * The column naming the thread's org, written by the app's server (never by a client):
   * with it, {@link MessageTableReader.threadOwner} reads the owner from it.
   */
  orgIdColumn?: string;
  /**
   * The column of the thread's last change (`timestamptz`, `timestamp` or `date`; or text
   * holding an ISO 8601 date-time, read in the session's time zone when it has no offset):
   * with it and `orgIdColumn`, {@link MessageTableReader.directory} lists active threads. A
   * row whose text is not such a date-time is passed over and counted in the first page's
   * `unreadable`, never failing the listing.
   */
  updatedAtColumn?: string;
}

/** Defaults of {@link MessageTableReaderOptions} and of a directory page. */
export const MESSAGE_TABLE_DEFAULTS = {
  threadIdColumn: "thread_id",
  messagesColumn: "messages",
  limit: 100,
  maxLimit: 1_000,
} as const;

/** A {@link CheckpointReader} over an app's own table of message histories. */
export interface MessageTableReader extends CheckpointReader {
  /** The owners of threads, from `orgIdColumn`; `undefined` without it. */
  readonly threadOwner: ThreadOwner | undefined;
  /** The sweep's directory, from `orgIdColumn` and `updatedAtColumn`; `undefined` without both. */
  readonly directory: ThreadDirectory | undefined;
  /** Ends the pool if the reader created it from a connection string; otherwise a no-op. */
  close(): Promise<void>;
}

function identifier(name: string, value: string): string {
  if (!SQL_IDENTIFIER.test(value)) {
    throw new InvalidOptionError(`${name}: must be a plain identifier, got ${JSON.stringify(value)}`, name);
  }
  return `"${value}"`;
}

function tableName(table: unknown): string {
  if (typeof table !== "string" || table.length === 0) {
    throw new InvalidOptionError("table: name the table or view holding the threads' messages", "table");
  }
  const parts = table.split(".");
  if (parts.length > 2 || !parts.every((part) => SQL_IDENTIFIER.test(part))) {
    throw new InvalidOptionError(
      `table: must be name or schema.name of plain identifiers, got ${JSON.stringify(table)}`,
      "table",
    );
  }
  return parts.map((part) => `"${part}"`).join(".");
}

function optionalIdentifier(name: string, value: string | undefined): string | undefined {
  return value === undefined ? undefined : identifier(name, value);
}

/** The checked settings: quoted names, ready to go into statements. */
function settingsOf(options: MessageTableReaderOptions) {
  const table = tableName(options.table);
  const threadId = identifier(
    "threadIdColumn",
    options.threadIdColumn ?? MESSAGE_TABLE_DEFAULTS.threadIdColumn,
  );
  const messages = identifier(
    "messagesColumn",
    options.messagesColumn ?? MESSAGE_TABLE_DEFAULTS.messagesColumn,
  );
  const orgId = optionalIdentifier("orgIdColumn", options.orgIdColumn);
  const updatedAt = optionalIdentifier("updatedAtColumn", options.updatedAtColumn);
  if (options.format !== undefined && !THREAD_FILE_FORMATS.includes(options.format)) {
    throw new InvalidOptionError(
      `format: must be one of ${THREAD_FILE_FORMATS.join(", ")}, got ${JSON.stringify(options.format)}`,
      "format",
    );
  }
  return { table, threadId, messages, orgId, updatedAt, updatedAtName: options.updatedAtColumn };
}

/** Column types whose values always read as a timestamptz: compared as they are (an index serves it). */
const DATE_TIME_TYPE = /^(timestamp|date)\b/;

/**
 * The SQL of a row's last change as a timestamptz: the column itself when its type is a
 * date-time, else its text read safely (NULL for a value that is not a date-time).
 */
function activityOf(updatedAt: string, type: string | undefined): { sql: string; typed: boolean } {
  if (type === undefined || DATE_TIME_TYPE.test(type)) {
    return { sql: `${updatedAt}::timestamptz`, typed: true };
  }
  return { sql: safeTimestampSql(`${updatedAt}::text`, "optional"), typed: false };
}

/** The listing of one page of active threads, over `activity` (the row's last change). */
function activeThreadsSql(table: string, threadId: string, orgId: string, activity: string): string {
  // One row per thread changed since $1 whose rows all name one org; pages follow thread id.
  return `select thread_id, min(org_id) as org_id, max(updated_at) as last_activity_at
          from (
            select ${threadId}::text as thread_id, nullif(${orgId}::text, '') as org_id,
              ${activity} as updated_at
            from ${table}
            where ${activity} >= $1::timestamptz and ($2::text is null or ${threadId}::text > $2::text)
          ) recent
          group by thread_id
          having count(distinct org_id) = 1 and bool_and(org_id is not null)
          order by thread_id
          limit $3`;
}

/**
 * Checks a message table's names and format as {@link createMessageTableReader} does,
 * without a connection: an edge can refuse bad settings before it opens anything.
 * @throws {InvalidOptionError} naming the option (`field`) that is not valid.
 */
export function checkMessageTableNames(
  options: Omit<MessageTableReaderOptions, "pool" | "connectionString">,
): void {
  settingsOf(options);
}

function storeFailed(message: string, error: unknown, threadId?: string): CheckpointReadError {
  return new CheckpointReadError(message, {
    reason: CHECKPOINT_READ_REASONS.storeFailed,
    ...(threadId === undefined ? {} : { threadId }),
    cause: error,
  });
}

/** A row's messages value (parsed JSON, or JSON text) as neutral messages. */
async function messagesOf(value: unknown, threadId: string, format?: ThreadFileFormat): Promise<Message[]> {
  if (value === null || value === undefined) return [];
  const source = `thread ${threadId}`;
  let parsed = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      throw new CheckpointReadError(
        `${source}: the messages column is not JSON: ${(error as Error).message}`,
        {
          reason: CHECKPOINT_READ_REASONS.invalidChannel,
          threadId,
          cause: error,
        },
      );
    }
  }
  try {
    return (await threadFromJson(parsed, source, format === undefined ? {} : { format })).messages;
  } catch (error) {
    if (!(error instanceof ThreadFileError)) throw error;
    const reason =
      error.reason === THREAD_FILE_REASONS.unknownFormat || error.field === "messages"
        ? CHECKPOINT_READ_REASONS.invalidChannel
        : CHECKPOINT_READ_REASONS.invalidMessage;
    throw new CheckpointReadError(error.message, { reason, threadId, cause: error });
  }
}

function pageLimit(limit: number | undefined): number {
  const value = limit ?? MESSAGE_TABLE_DEFAULTS.limit;
  if (!Number.isInteger(value) || value < 1 || value > MESSAGE_TABLE_DEFAULTS.maxLimit) {
    throw new InvalidOptionError(`limit: must be an integer from 1 to 1000, got ${value}`, "limit");
  }
  return value;
}

function ownership(row: unknown): ThreadOwnership {
  const { rows: count, unnamed, org_ids: named } = (row ?? {}) as Record<string, unknown>;
  const orgIds = Array.isArray(named) ? named.map(String).sort() : [];
  if (Number(count ?? 0) === 0 || orgIds.length === 0 || Number(unnamed ?? 0) > 0)
    return { status: "unknown" };
  if (orgIds.length > 1) return { status: "conflicting", orgIds };
  return { status: "owned", orgId: orgIds[0] as string };
}

/**
 * A read-only {@link CheckpointReader} for apps that keep their own message history (AI SDK,
 * Anthropic, OpenAI or any runtime): one row per thread in a table or view the app names,
 * its messages as JSON in any format the `context-cleaner` CLI reads, detected per row
 * (or fixed by `format`). It runs SELECTs only; a thread with no row reads as `null`, a row
 * whose messages are NULL as `[]`, and a thread with more than one row is refused.
 *
 * With `orgIdColumn` it also answers who owns a thread (the org the column names; a thread
 * whose rows name none is `unknown`, more than one `conflicting`), and with `updatedAtColumn`
 * as well, it lists the threads changed since an instant for the nightly sweep. The org
 * column must be written by the app's server from the authenticated caller.
 *
 * Log in as a role that can only read the table:
 *
 * ```sql
 * CREATE ROLE context_cleaner_reader LOGIN PASSWORD '…';
 * ALTER ROLE context_cleaner_reader SET default_transaction_read_only = on;
 * GRANT USAGE ON SCHEMA app TO context_cleaner_reader;
 * GRANT SELECT ON app.thread_messages TO context_cleaner_reader;
 * ```
 *
 * @throws {InvalidOptionError} unless exactly one of `pool` and `connectionString` is given,
 *   or for a table or column name that is not a plain identifier, or an unknown format.
 * @example
 * const reader = createMessageTableReader({
 *   connectionString: readerUrl,
 *   table: "app.thread_messages",
 *   orgIdColumn: "org_id",
 *   updatedAtColumn: "updated_at",
 * });
 * const messages = await reader.readThread("thread-42"); // Message[] | null
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a factory whose reader, owner and directory share one pool and its settings
export function createMessageTableReader(options: MessageTableReaderOptions): MessageTableReader {
  const { table, threadId, messages, orgId, updatedAt, updatedAtName } = settingsOf(options);
  const pool = checkpointPool("createMessageTableReader", options);
  const readSql = `select ${messages} as messages from ${table} where ${threadId}::text = $1 limit 2`;
  const query = async (statement: string, values: unknown[]) => (await pool.pool()).query(statement, values);

  const threadOwner: ThreadOwner | undefined =
    orgId === undefined
      ? undefined
      : {
          async ownerOf(id) {
            const org = `nullif(${orgId}::text, '')`;
            const statement = `select count(*)::int as rows, count(*) filter (where ${org} is null)::int as unnamed,
          array_agg(distinct ${org}) filter (where ${org} is not null) as org_ids
        from ${table} where ${threadId}::text = $1`;
            try {
              return ownership((await query(statement, [id])).rows[0]);
            } catch (error) {
              throw storeFailed(`reading the owner of thread ${id} from ${options.table} failed`, error, id);
            }
          },
        };

  // The updated-at column's type, read once from the catalog (a failed read is tried again).
  let activity: Promise<{ sql: string; typed: boolean }> | undefined;
  const activityColumn = (column: string) => {
    activity ??= query(
      `select format_type(atttypid, atttypmod) as type from pg_catalog.pg_attribute
        where attrelid = $1::regclass and attname = $2 and attnum > 0 and not attisdropped`,
      [table, updatedAtName],
    ).then(
      ({ rows }) => activityOf(column, (rows[0] as { type?: string } | undefined)?.type),
      (error: unknown) => {
        activity = undefined;
        throw error;
      },
    );
    return activity;
  };

  const directory: ThreadDirectory | undefined =
    orgId === undefined || updatedAt === undefined
      ? undefined
      : {
          async listActiveThreads(page: ActiveThreadsQuery): Promise<ActiveThreadsPage> {
            const limit = pageLimit(page.limit);
            if (!(page.since instanceof Date) || Number.isNaN(page.since.getTime())) {
              throw new InvalidOptionError("since: must be a valid Date", "since");
            }
            const after = page.cursor ? decodePageCursor(page.cursor, 1)?.[0] : null;
            if (after === undefined) {
              throw new InvalidOptionError("cursor: not a cursor returned by listActiveThreads", "cursor");
            }
            let rows: unknown[];
            let unreadable: number | undefined;
            try {
              const column = await activityColumn(updatedAt);
              ({ rows } = await query(activeThreadsSql(table, threadId, orgId, column.sql), [
                page.since.toISOString(),
                after,
                limit + 1,
              ]));
              // Text that is no date-time was passed over: the first page counts it, for the whole table.
              if (!column.typed && after === null) {
                const counted = await query(
                  `select count(*)::int as unreadable from ${table} where ${updatedAt} is not null and (${column.sql}) is null`,
                  [],
                );
                unreadable = Number(
                  (counted.rows[0] as { unreadable?: unknown } | undefined)?.unreadable ?? 0,
                );
              }
            } catch (error) {
              throw storeFailed(`listing active threads from ${options.table} failed`, error);
            }
            const threads = rows.slice(0, limit).map((row) => {
              const { thread_id, org_id, last_activity_at } = row as Record<string, unknown>;
              const at =
                last_activity_at instanceof Date ? last_activity_at : new Date(String(last_activity_at));
              return { threadId: String(thread_id), orgId: String(org_id), lastActivityAt: at };
            });
            const last = threads.at(-1);
            return {
              threads,
              nextCursor: rows.length > limit && last ? encodePageCursor([last.threadId]) : null,
              ...(unreadable === undefined ? {} : { unreadable }),
            };
          },
        };

  return {
    async readThread(id: string): Promise<Message[] | null> {
      let rows: unknown[];
      try {
        ({ rows } = await query(readSql, [id]));
      } catch (error) {
        throw storeFailed(`reading thread ${id} from ${options.table} failed`, error, id);
      }
      if (rows.length === 0) return null;
      if (rows.length > 1) {
        throw new CheckpointReadError(
          `thread ${id} has more than one row in ${options.table}: keep one row per thread`,
          { reason: CHECKPOINT_READ_REASONS.invalidChannel, threadId: id },
        );
      }
      return messagesOf((rows[0] as { messages: unknown }).messages, id, options.format);
    },
    threadOwner,
    directory,
    close: () => pool.close(),
  };
}
