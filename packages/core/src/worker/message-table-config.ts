import type { MessageTableReaderOptions } from "../checkpoints/message-table";

/**
 * Where an app that keeps its own message history stores it: the functions then read
 * threads from that table or view (SELECT-only, through the checkpoint store's URL)
 * instead of LangGraph's checkpoint tables.
 */
export type MessageTableConfig = Omit<MessageTableReaderOptions, "pool" | "connectionString">;

/**
 * The environment variables that configure the message-table reader, by option. Only
 * `CHECKPOINT_MESSAGE_TABLE` is required to use it; the others default as the reader does.
 */
export const MESSAGE_TABLE_ENVIRONMENT = {
  table: "CHECKPOINT_MESSAGE_TABLE",
  threadIdColumn: "CHECKPOINT_THREAD_ID_COLUMN",
  messagesColumn: "CHECKPOINT_MESSAGES_COLUMN",
  format: "CHECKPOINT_MESSAGES_FORMAT",
  orgIdColumn: "CHECKPOINT_ORG_ID_COLUMN",
  updatedAtColumn: "CHECKPOINT_UPDATED_AT_COLUMN",
} as const satisfies Record<keyof MessageTableConfig, string>;

/**
 * The message table the environment names, or `undefined` when `CHECKPOINT_MESSAGE_TABLE`
 * is unset (the functions read LangGraph's tables). The names are checked when the reader
 * is created, so a function whose settings are wrong does not start.
 * @throws {Error} when a column is named without `CHECKPOINT_MESSAGE_TABLE`.
 */
export function messageTableFromEnvironment(
  environment: Record<string, string | undefined>,
): MessageTableConfig | undefined {
  const config: Record<string, string> = {};
  for (const [option, variable] of Object.entries(MESSAGE_TABLE_ENVIRONMENT)) {
    const value = environment[variable];
    if (value !== undefined && value !== "") config[option] = value;
  }
  if (config.table === undefined) {
    const named = Object.values(MESSAGE_TABLE_ENVIRONMENT).filter((variable) => environment[variable]);
    if (named.length > 0) {
      throw new Error(`${named.join(", ")} set without CHECKPOINT_MESSAGE_TABLE: name the table or view too`);
    }
    return undefined;
  }
  return config as MessageTableConfig;
}
