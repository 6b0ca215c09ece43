import { parseArgs } from "node:util";
import { createToolPolicy, InvalidOptionError, type ToolPolicyInput } from "@context-cleaner/assembler";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import { withFallback } from "../digesters/with-fallback";
import { UsageError } from "../errors";
import type { DigestModel } from "../ports";
import {
  readThreadFile,
  THREAD_FILE_FORMATS,
  type ThreadFile,
  type ThreadFileFormat,
} from "../thread-file/thread-file";
import { decodeUtf8, NotUtf8Error } from "../thread-file/utf8";
import { type CleanedThread, cleanThread } from "./clean-thread";
import type { CliIo } from "./cli-io";
import { isOpsCommand, OPS_USAGE, runOpsCommand } from "./ops";
import { renderSummary, summarizePasses, writeViewJson, writeViewText } from "./render-view";
import { reportFailure } from "./report-failure";

const USAGE = `Usage:
  context-cleaner clean <thread.json> [--json] [--format neutral|langchain|anthropic|openai|ai-sdk]
                        [--model extractive|anthropic|openai-compatible] [--policy policy.json]
                        [--database <url>]
  context-cleaner help

clean   Digests and assembles a thread (neutral JSON { "messages": [...] }, LangChain stored
        messages, Anthropic Messages, OpenAI Chat Completions or AI SDK ModelMessage[];
        detected) and prints the model's view. The digests are kept in memory.
        --json       print { "messages": [...], "report": {...} }, the messages in the file's format
        --format     neutral, langchain, anthropic, openai or ai-sdk instead of detecting it
        --model      extractive (default, no network), anthropic (needs ANTHROPIC_API_KEY) or
                     openai-compatible (any Chat Completions server: OpenAI, OpenRouter, vLLM,
                     Ollama; needs OPENAI_COMPATIBLE_BASE_URL, OPENAI_COMPATIBLE_API_KEY and
                     OPENAI_COMPATIBLE_MODEL; optional OPENAI_COMPATIBLE_OUTPUT_LIMIT_FIELD)
        --policy     a JSON tool policy ({ "tools": { "<name>": { "kind": ... } } })
        --database   keep the digests in a database instead: postgres://…, a Neon host,
                     pglite:// (embedded, in memory) or pglite://<dir>

Exit codes: 0 done (also when a reader such as head closes stdout early), 2 bad input
(this usage, on stderr, when there are no arguments), 1 the environment failed (database,
permission) or a bug.`;

async function loadPolicy(path: string | undefined): Promise<ToolPolicyInput | undefined> {
  if (!path) return undefined;
  const { readFile } = await import("node:fs/promises");
  let text: string;
  try {
    text = decodeUtf8(await readFile(path));
  } catch (error) {
    if (error instanceof NotUtf8Error) throw new UsageError(`policy file ${path}: ${error.message}`);
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read policy file ${path}${code ? ` (${code})` : ""}`);
  }
  let policy: unknown;
  try {
    policy = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`policy file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (!isPlainObject(policy)) {
    throw new UsageError(
      `policy file ${path} must hold a JSON object ({ "tools": { "<name>": { "kind": ... } } }), got ${jsonKind(policy)}`,
    );
  }
  if (policy.tools !== undefined && !isPlainObject(policy.tools)) {
    throw new UsageError(
      `policy file ${path}: tools must be an object of tool rules by tool name, got ${jsonKind(policy.tools)}`,
    );
  }
  createToolPolicy(policy as ToolPolicyInput);
  return policy as ToolPolicyInput;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** What a parsed JSON value is, with its article: "an array", "null", "a string". */
function jsonKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

async function digesterFor(model: string, io: CliIo): Promise<DigestModel> {
  const extractive = createExtractiveDigester();
  if (model === "extractive") return extractive;
  if (model === "openai-compatible") return withFallback(await openAiCompatibleDigester(io), extractive);
  if (model !== "anthropic") {
    throw new UsageError(
      `--model must be extractive, anthropic or openai-compatible, got ${JSON.stringify(model)}`,
    );
  }
  const apiKey = io.environment.ANTHROPIC_API_KEY;
  if (!apiKey) throw new UsageError("--model anthropic needs ANTHROPIC_API_KEY in the environment");
  // Loaded on demand: the Anthropic SDK costs a one-shot extractive clean ~0.6 s to load.
  const { ANTHROPIC_DIGESTER_DEFAULTS, createAnthropicDigester } = await import(
    "../digesters/anthropic/anthropic-digester"
  );
  const baseURL = io.environment.ANTHROPIC_BASE_URL ?? ANTHROPIC_DIGESTER_DEFAULTS.baseURL;
  return withFallback(createAnthropicDigester({ apiKey, baseURL }), extractive);
}

/** The OpenAI-compatible digester from the environment's settings; the SDK loads only here. */
async function openAiCompatibleDigester(io: CliIo): Promise<DigestModel> {
  const { createOpenAiCompatibleDigester, openAiCompatibleSettings } = await import(
    "../digesters/openai-compatible/index"
  );
  let settings: ReturnType<typeof openAiCompatibleSettings>;
  try {
    settings = openAiCompatibleSettings(io.environment);
  } catch (error) {
    if (error instanceof InvalidOptionError) {
      throw new UsageError(`--model openai-compatible: ${error.message} in the environment`);
    }
    throw error;
  }
  try {
    return createOpenAiCompatibleDigester(settings);
  } catch (error) {
    if (error instanceof InvalidOptionError)
      throw new UsageError(`--model openai-compatible: ${error.message}`);
    throw error;
  }
}

/** `--format`: one of the thread file formats, or detection when absent. */
function formatOption(value: string | undefined): { format?: ThreadFileFormat } {
  if (value === undefined) return {};
  if (!(THREAD_FILE_FORMATS as readonly string[]).includes(value)) {
    throw new UsageError(
      `--format must be one of ${THREAD_FILE_FORMATS.join(", ")}, got ${JSON.stringify(value)}`,
    );
  }
  return { format: value as ThreadFileFormat };
}

/**
 * The view in the file's own format: a provider-format file (Anthropic, OpenAI) is
 * assembled again with the same digests by its adapter, so the answer keeps the caller's
 * shape; the neutral and LangChain forms answer with the neutral view.
 */
async function inFileFormat(
  file: ThreadFile,
  result: CleanedThread,
  policy: ToolPolicyInput | undefined,
  io: CliIo,
): Promise<readonly unknown[]> {
  if (!file.original) return result.view.messages;
  const options = {
    disabled: io.environment.CONTEXT_CLEANER_DISABLED === "1",
    ...(policy ? { policy } : {}),
  };
  if (file.format === "anthropic") {
    const { assembleAnthropicView } = await import("@context-cleaner/assembler/anthropic");
    type Thread = Parameters<typeof assembleAnthropicView>[0];
    // A cleaned file is a record, not a request: no cache breakpoints in it.
    return assembleAnthropicView(file.original as Thread, result.digests, {
      ...options,
      cacheBreakpoints: false,
    }).messages;
  }
  if (file.format === "ai-sdk") {
    const { assembleAiSdkPrompt } = await import("@context-cleaner/assembler/ai-sdk");
    type Thread = Parameters<typeof assembleAiSdkPrompt>[0];
    return assembleAiSdkPrompt(file.original as Thread, result.digests, options).messages;
  }
  const { assembleOpenAIView } = await import("@context-cleaner/assembler/openai");
  type Thread = Parameters<typeof assembleOpenAIView>[0];
  return assembleOpenAIView(file.original as Thread, result.digests, options).messages;
}

async function clean(
  positionals: string[],
  values: { json?: boolean; model?: string; policy?: string; database?: string; format?: string },
  io: CliIo,
) {
  const [path, ...extra] = positionals;
  if (!path) throw new UsageError("clean needs a thread file: context-cleaner clean <thread.json>");
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  const digester = await digesterFor(values.model ?? "extractive", io);
  const policy = await loadPolicy(values.policy);
  const file = await readThreadFile(path, { ...formatOption(values.format) });
  const result = await cleanThread(file.messages, {
    digester,
    disabled: io.environment.CONTEXT_CLEANER_DISABLED === "1",
    ...(policy ? { policy } : {}),
    ...(values.database !== undefined ? { databaseUrl: values.database } : {}),
  });
  // Written a message at a time: a large view is never held as one string.
  if (values.json) {
    const report = { ...result.view.report, digest: summarizePasses(result.passes) };
    const messages = await inFileFormat(file, result, policy, io);
    writeViewJson(messages, report, io.stdout);
    io.stdout("\n");
  } else {
    writeViewText(result.view.messages, io.stdout);
    io.stdout(`\n\n${renderSummary(result)}\n`);
  }
}

/**
 * The `context-cleaner` command. Returns the exit code: 0 done, 2 bad input (one line on
 * stderr naming the problem), 1 the environment failed (one line: database out of reach,
 * permission missing) or an unexpected failure (with its stack).
 */
const OPTIONS = {
  json: { type: "boolean" },
  model: { type: "string" },
  policy: { type: "string" },
  database: { type: "string" },
  format: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** `help` takes nothing: an argument or option given to it is refused, not ignored. */
function refuseExtras(
  command: string,
  positionals: readonly string[],
  values: Record<string, unknown>,
): void {
  if (positionals.length > 0) {
    throw new UsageError(`${command} takes no arguments, got ${JSON.stringify(positionals[0])}`);
  }
  const option = Object.keys(values).find((name) => name !== "help");
  if (option) throw new UsageError(`${command} takes no options, got --${option}`);
}

/**
 * The `context-cleaner` command. Returns the exit code: 0 done (or `help`), 2 bad input
 * (one line on stderr naming the problem; no arguments at all print the usage on stderr),
 * 1 the environment failed (one line: database out of reach, permission missing) or an
 * unexpected failure (with its stack).
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  // Operations commands parse their own flags.
  if (isOpsCommand(argv[0])) return runOpsCommand(argv, io);
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true });
  } catch (error) {
    io.stderr(`context-cleaner: ${(error as Error).message}\n`);
    return 2;
  }
  const [command, ...rest] = parsed.positionals;
  if (command === undefined && !parsed.values.help) {
    io.stderr(`${USAGE}\n\n${OPS_USAGE}\n`);
    return 2;
  }
  try {
    if (command === "help") refuseExtras(command, rest, parsed.values);
    if (parsed.values.help || command === "help") {
      io.stdout(`${USAGE}\n\n${OPS_USAGE}\n`);
      return 0;
    }
    if (command === "clean") await clean(rest, parsed.values, io);
    else throw new UsageError(`unknown command ${JSON.stringify(command)} (try: clean, help)`);
    return 0;
  } catch (error) {
    const failure = reportFailure(error);
    io.stderr(`${failure.line}\n`);
    return failure.exitCode;
  }
}
