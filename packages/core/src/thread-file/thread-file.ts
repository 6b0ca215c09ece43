import { open, readFile, writeFile } from "node:fs/promises";
import { InvalidThreadError, type Message, validateThread } from "@context-cleaner/assembler";
import { isRecord } from "@context-cleaner/assembler/internal";
import { THREAD_FILE_REASONS, ThreadFileError } from "../errors";
import { jsonSyntaxErrorOffset, textPosition } from "./json-syntax";
import { splitThreadMessages } from "./message-splitter";
import { decodeUtf8, invalidUtf8Offset, NotUtf8Error } from "./utf8";

/**
 * The thread file formats: the neutral format, LangChain stored messages, Anthropic
 * Messages (`MessageParam[]`: `tool_use` / `tool_result` blocks), OpenAI Chat
 * Completions (`tool_calls`, role `tool`) or the AI SDK's `ModelMessage[]` (`tool-call` /
 * `tool-result` parts).
 */
export const THREAD_FILE_FORMATS = ["neutral", "langchain", "anthropic", "openai", "ai-sdk"] as const;
export type ThreadFileFormat = (typeof THREAD_FILE_FORMATS)[number];

/** A thread read from a file, in the neutral model. */
export interface ThreadFile {
  format: ThreadFileFormat;
  messages: Message[];
  /** The file's own messages, for a provider format (`anthropic`, `openai`, `ai-sdk`): the view answers in it. */
  original?: readonly unknown[];
}

const EXPECTED =
  'expected { "messages": [...] } (neutral thread format) or an array of LangChain stored messages';

function isLangChainStored(value: Record<string, unknown>): boolean {
  const constructorForm = value.type === "constructor" && Array.isArray(value.id) && isRecord(value.kwargs);
  return constructorForm || (typeof value.type === "string" && isRecord(value.data));
}

function fileError(
  source: string | undefined,
  message: string,
  details: ConstructorParameters<typeof ThreadFileError>[1],
): ThreadFileError {
  return new ThreadFileError(source === undefined ? message : `${source}: ${message}`, {
    ...details,
    path: source,
  });
}

function parseJson(text: string, source: string | undefined): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const offset = jsonSyntaxErrorOffset(text);
    const position = offset < 0 ? undefined : textPosition(text, offset);
    const where = position ? ` at line ${position.line}, column ${position.column}` : "";
    return fileError(source, `invalid JSON${where}: ${(error as Error).message}`, {
      reason: THREAD_FILE_REASONS.invalidJson,
      ...position,
      cause: error,
    });
  }
}

type ProviderFormat = "openai" | "anthropic" | "ai-sdk";

/** Whether a message with a `role` is OpenAI Chat Completions', Anthropic Messages' or the AI SDK's form. */
function providerFormat(message: unknown): ProviderFormat | undefined {
  if (!isRecord(message)) return undefined;
  if ("tool_calls" in message || "tool_call_id" in message || message.role === "developer") return "openai";
  const blocks = Array.isArray(message.content) ? message.content : [];
  const typed = (...types: string[]) =>
    blocks.some((block) => isRecord(block) && types.includes(block.type as string));
  if (typed("tool_use", "tool_result")) return "anthropic";
  return typed("tool-call", "tool-result") ? "ai-sdk" : undefined;
}

function detectFormat(messages: readonly unknown[], wrapped: boolean): ThreadFileFormat | undefined {
  const first = messages[0];
  if (first === undefined) return wrapped ? "neutral" : "langchain";
  if (!isRecord(first)) return undefined;
  if (typeof first.role === "string") {
    // Neutral messages carry toolCalls / toolCallId; the providers' forms name theirs.
    for (const message of messages) {
      const format = providerFormat(message);
      if (format) return format;
    }
    return "neutral";
  }
  return isLangChainStored(first) ? "langchain" : undefined;
}

/** The neutral thread of a provider-format file (the adapters load on demand). */
async function convertProvider(format: ProviderFormat, messages: readonly unknown[]): Promise<Message[]> {
  if (format === "ai-sdk") {
    const { aiSdkToNeutral } = await import("@context-cleaner/assembler/ai-sdk");
    return aiSdkToNeutral(messages as Parameters<typeof aiSdkToNeutral>[0]);
  }
  if (format === "anthropic") {
    const { anthropicToNeutral } = await import("@context-cleaner/assembler/anthropic");
    return anthropicToNeutral(messages as Parameters<typeof anthropicToNeutral>[0]);
  }
  const { openAIToNeutral } = await import("@context-cleaner/assembler/openai");
  return openAIToNeutral(messages as Parameters<typeof openAIToNeutral>[0]);
}

async function convertLangChain(messages: readonly unknown[]): Promise<Message[]> {
  // Loaded on demand: reading a neutral file never needs @langchain/core.
  const { fromLangChain } = await import("@context-cleaner/assembler/langchain");
  return fromLangChain(messages as Parameters<typeof fromLangChain>[0]);
}

/**
 * Parses the text of a thread file: the neutral format `{ "messages": [...] }` (
 * a bare array of neutral messages is accepted too) or LangChain stored messages (an array
 * or `{ "messages": [...] }` of `mapChatMessagesToStoredMessages` or `toJSON()` forms).
 * The format is decided by the first message: `role` → neutral; `type` + `data`, or a
 * `constructor` form → LangChain.
 *
 * @param source the file name used in error messages.
 * @throws {ThreadFileError} `invalid_json` (with line and column), `unknown_format`, or
 *   `invalid_field` (naming `messages[i].field`).
 * @example
 * const { format, messages } = await parseThreadFile('{ "messages": [{ "role": "user", "content": "hi" }] }');
 */
export async function parseThreadFile(
  text: string,
  source?: string,
  options: { format?: ThreadFileFormat } = {},
): Promise<ThreadFile> {
  const parsed = parseJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, source);
  if (parsed instanceof ThreadFileError) throw parsed;
  return threadFromJson(parsed, source, options);
}

/**
 * The thread of an already parsed thread-file value (a messages array, or an object with a
 * `messages` array), its format decided as {@link parseThreadFile} decides it.
 *
 * @param source the name used in error messages.
 * @throws {ThreadFileError} `unknown_format` or `invalid_field` (naming `messages[i].field`).
 */
export async function threadFromJson(
  parsed: unknown,
  source?: string,
  options: { format?: ThreadFileFormat } = {},
): Promise<ThreadFile> {
  const wrapped = isRecord(parsed) && "messages" in parsed;
  const messages: unknown = wrapped ? parsed.messages : parsed;
  if (!Array.isArray(messages)) {
    if (wrapped) {
      throw fileError(
        source,
        `messages must be an array, got ${messages === null ? "null" : typeof messages}`,
        {
          reason: THREAD_FILE_REASONS.invalidField,
          field: "messages",
        },
      );
    }
    throw fileError(source, `unknown thread format: ${EXPECTED}`, {
      reason: THREAD_FILE_REASONS.unknownFormat,
    });
  }
  return threadFromMessages(messages, wrapped, source, options.format);
}

/** The thread of a file's messages array: its format decided (or given), converted and validated. */
async function threadFromMessages(
  messages: readonly unknown[],
  wrapped: boolean,
  source: string | undefined,
  given?: ThreadFileFormat,
): Promise<ThreadFile> {
  const format = given ?? detectFormat(messages, wrapped);
  if (format === undefined) {
    throw fileError(
      source,
      `unknown thread format: messages[0] has neither "role" (neutral) nor "type" + "data" (LangChain stored); ${EXPECTED}`,
      { reason: THREAD_FILE_REASONS.unknownFormat, index: 0 },
    );
  }
  try {
    if (format === "anthropic" || format === "openai" || format === "ai-sdk") {
      const neutral = await convertProvider(format, messages);
      validateThread(neutral);
      return { format, messages: neutral, original: messages };
    }
    const neutral = format === "neutral" ? messages : await convertLangChain(messages);
    validateThread(neutral);
    return { format, messages: neutral as Message[] };
  } catch (error) {
    const invalid = error instanceof InvalidThreadError ? error : undefined;
    throw fileError(source, `invalid ${format} thread: ${(error as Error).message}`, {
      reason: THREAD_FILE_REASONS.invalidField,
      index: invalid?.index,
      field: invalid?.field,
      cause: error,
    });
  }
}

const READ_DEFAULTS = {
  /** Bytes read at a time. */
  chunkBytes: 1 << 16,
} as const;

/** The error of a file that cannot be opened or read: ENOENT is `not_found`, anything else `unreadable`. */
function readError(path: string, error: unknown): ThreadFileError {
  const notFound = (error as { code?: unknown }).code === "ENOENT";
  return fileError(path, notFound ? "no such file" : `cannot read: ${(error as Error).message}`, {
    reason: notFound ? THREAD_FILE_REASONS.notFound : THREAD_FILE_REASONS.unreadable,
    cause: error,
  });
}

/** The error of a file that is not UTF-8, naming the byte offset of the first ill-formed sequence. */
function encodingError(path: string, error: NotUtf8Error): ThreadFileError {
  return fileError(path, error.message, {
    reason: THREAD_FILE_REASONS.invalidEncoding,
    byteOffset: error.byteOffset,
    cause: error,
  });
}

/**
 * The text of a file, chunk by chunk: strict UTF-8 (a leading byte order mark is dropped).
 * @throws {ThreadFileError} `not_found`, `unreadable`, or `invalid_encoding` with the byte offset.
 */
async function* textChunks(path: string): AsyncGenerator<string> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
  } catch (error) {
    throw readError(path, error);
  }
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let decoded = true;
  try {
    const stream = handle.createReadStream({ highWaterMark: READ_DEFAULTS.chunkBytes });
    try {
      for await (const bytes of stream) {
        let text: string;
        try {
          text = decoder.decode(bytes as Buffer, { stream: true });
        } catch {
          decoded = false;
          break;
        }
        yield text;
      }
    } catch (error) {
      // EISDIR, EACCES on read: a file we cannot read.
      throw readError(path, error);
    } finally {
      stream.destroy();
    }
    if (decoded) {
      try {
        yield decoder.decode();
        return;
      } catch {
        // A sequence cut short at the end of the file.
      }
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
  // Not UTF-8: read it whole (an error path) to find where.
  const bytes = await readBytes(path);
  throw encodingError(path, new NotUtf8Error(Math.max(0, invalidUtf8Offset(bytes))));
}

async function readBytes(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    throw readError(path, error);
  }
}

async function readText(path: string): Promise<string> {
  try {
    return decodeUtf8(await readBytes(path));
  } catch (error) {
    throw error instanceof NotUtf8Error ? encodingError(path, error) : error;
  }
}

/**
 * Reads and parses a thread file (see {@link parseThreadFile}). The file is read in chunks
 * and parsed one message at a time, so memory holds the messages, not the file's text as
 * well; only a file that is not valid JSON is read whole again, for its error's position.
 *
 * @throws {ThreadFileError} `not_found`, `unreadable`, or any reason of {@link parseThreadFile}.
 * @example
 * const { messages } = await readThreadFile("fixtures/lease-thread.json");
 */
export async function readThreadFile(
  path: string,
  options: { format?: ThreadFileFormat } = {},
): Promise<ThreadFile> {
  const split = await splitThreadMessages(textChunks(path));
  if (split) return threadFromMessages(split.messages, split.wrapped, path, options.format);
  return parseThreadFile(await readText(path), path, options);
}

function neutralRecord(message: Message): Record<string, unknown> {
  const record: Record<string, unknown> = { role: message.role };
  if (message.id !== undefined) record.id = message.id;
  record.content = message.content;
  if (message.role === "assistant" && message.toolCalls !== undefined) record.toolCalls = message.toolCalls;
  if (message.role === "tool") {
    record.toolCallId = message.toolCallId;
    record.toolName = message.toolName;
    if (message.status !== undefined) record.status = message.status;
  }
  return record;
}

/**
 * The neutral JSON thread format of `messages`: `{ "messages": [...] }`, two-space
 * indented, fields in a fixed order, ending with a newline. Deterministic: the same
 * messages always serialize to the same bytes.
 *
 * @throws {InvalidThreadError} when `messages` is not a well-formed neutral thread.
 * @example
 * process.stdout.write(serializeThread(view.messages));
 */
export function serializeThread(messages: readonly Message[]): string {
  validateThread(messages);
  return `${JSON.stringify({ messages: messages.map(neutralRecord) }, null, 2)}\n`;
}

/**
 * Writes `messages` to `path` in the neutral JSON thread format ({@link serializeThread}).
 *
 * @throws {InvalidThreadError} when `messages` is not a well-formed neutral thread.
 * @throws the file system's error when the file cannot be written.
 */
export async function writeThreadFile(path: string, messages: readonly Message[]): Promise<void> {
  await writeFile(path, serializeThread(messages), "utf8");
}
