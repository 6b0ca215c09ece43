import { InvalidOptionError } from "@context-cleaner/assembler";
import { checkMessageTableNames, type MessageTableReaderOptions } from "../checkpoints/message-table";

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

/**
 * {@link messageTableFromEnvironment}, its names and format checked as the reader checks
 * them, so an edge that opens nothing yet (a command line) can refuse bad settings first.
 * @throws {Error} when a column is named without `CHECKPOINT_MESSAGE_TABLE`.
 * @throws {InvalidOptionError} naming the variable (`field`) whose value is not valid.
 */
export function checkedMessageTableFromEnvironment(
  environment: Record<string, string | undefined>,
): MessageTableConfig | undefined {
  const config = messageTableFromEnvironment(environment);
  if (config === undefined) return undefined;
  try {
    checkMessageTableNames(config);
  } catch (error) {
    if (!(error instanceof InvalidOptionError)) throw error;
    const variable = MESSAGE_TABLE_ENVIRONMENT[error.field as keyof MessageTableConfig] ?? error.field;
    throw new InvalidOptionError(`${variable} ${error.message.replace(/^\w+: /, "")}`, variable);
  }
  return config;
}
