import { parseArgs } from "node:util";
import { createToolPolicy, type ToolPolicyInput } from "@context-cleaner/assembler";
import {
  ANTHROPIC_DIGESTER_DEFAULTS,
  createAnthropicDigester,
} from "../digesters/anthropic/anthropic-digester";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import { withFallback } from "../digesters/with-fallback";
import { UsageError } from "../errors";
import type { DigestModel } from "../ports";
import { readThreadFile } from "../thread-file/thread-file";
import { cleanThread } from "./clean-thread";
import { runDemo } from "./demo/demo";
import { isOpsCommand, OPS_USAGE, runOpsCommand } from "./ops";
import { renderSummary, renderViewText, summarizePasses } from "./render-view";
import { reportFailure } from "./report-failure";

const USAGE = `Usage:
  context-cleaner clean <thread.json> [--json] [--model extractive|anthropic] [--policy policy.json]
  context-cleaner demo
  context-cleaner help

clean   Digests and assembles a thread (neutral JSON { "messages": [...] } or LangChain
        stored messages) on embedded PGlite and prints the model's view.
        --json     print { "messages": [...], "report": {...} }
        --model    extractive (default, no network) or anthropic (needs ANTHROPIC_API_KEY)
        --policy   a JSON tool policy ({ "tools": { "<name>": { "kind": ... } } })
demo    Runs the bundled example thread through the worker and the assembler.

Exit codes: 0 done, 2 bad input, 1 the environment failed (database, permission) or a bug.`;

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  environment: Record<string, string | undefined>;
}

async function loadPolicy(path: string | undefined): Promise<ToolPolicyInput | undefined> {
  if (!path) return undefined;
  const { readFile } = await import("node:fs/promises");
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read policy file ${path}${code ? ` (${code})` : ""}`);
  }
  let policy: ToolPolicyInput;
  try {
    policy = JSON.parse(text) as ToolPolicyInput;
  } catch (error) {
    throw new UsageError(`policy file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  createToolPolicy(policy);
  return policy;
}

function digesterFor(model: string, io: CliIo): DigestModel {
  const extractive = createExtractiveDigester();
  if (model === "extractive") return extractive;
  if (model !== "anthropic")
    throw new UsageError(`--model must be extractive or anthropic, got ${JSON.stringify(model)}`);
  const apiKey = io.environment.ANTHROPIC_API_KEY;
  if (!apiKey) throw new UsageError("--model anthropic needs ANTHROPIC_API_KEY in the environment");
  const baseURL = io.environment.ANTHROPIC_BASE_URL ?? ANTHROPIC_DIGESTER_DEFAULTS.baseURL;
  return withFallback(createAnthropicDigester({ apiKey, baseURL }), extractive);
}

async function clean(
  positionals: string[],
  values: { json?: boolean; model?: string; policy?: string },
  io: CliIo,
) {
  const [path, ...extra] = positionals;
  if (!path) throw new UsageError("clean needs a thread file: context-cleaner clean <thread.json>");
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  const digester = digesterFor(values.model ?? "extractive", io);
  const policy = await loadPolicy(values.policy);
  const file = await readThreadFile(path);
  const result = await cleanThread(file.messages, {
    digester,
    disabled: io.environment.CONTEXT_CLEANER_DISABLED === "1",
    ...(policy ? { policy } : {}),
  });
  if (values.json) {
    io.stdout(
      `${JSON.stringify({ messages: result.view.messages, report: { ...result.view.report, digest: summarizePasses(result.passes) } }, null, 2)}\n`,
    );
  } else {
    io.stdout(`${renderViewText(result.view.messages)}\n\n${renderSummary(result)}\n`);
  }
}

/**
 * The `context-cleaner` command. Returns the exit code: 0 done, 2 bad input (one line on
 * stderr naming the problem), 1 the environment failed (one line: database out of reach,
 * permission missing) or an unexpected failure (with its stack).
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  // Operations commands parse their own flags.
  if (isOpsCommand(argv[0])) return runOpsCommand(argv, io);
  let parsed: ReturnType<
    typeof parseArgs<{
      options: {
        json: { type: "boolean" };
        model: { type: "string" };
        policy: { type: "string" };
        help: { type: "boolean"; short: "h" };
      };
      allowPositionals: true;
    }>
  >;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        json: { type: "boolean" },
        model: { type: "string" },
        policy: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
    });
  } catch (error) {
    io.stderr(`context-cleaner: ${(error as Error).message}\n`);
    return 2;
  }
  const [command, ...rest] = parsed.positionals;
  try {
    if (parsed.values.help || command === "help" || command === undefined) {
      io.stdout(`${USAGE}\n\n${OPS_USAGE}\n`);
      return command === undefined && !parsed.values.help ? 2 : 0;
    }
    if (command === "clean") await clean(rest, parsed.values, io);
    else if (command === "demo") await runDemo((line) => io.stdout(`${line}\n`));
    else throw new UsageError(`unknown command ${JSON.stringify(command)} (try: clean, demo, help)`);
    return 0;
  } catch (error) {
    const failure = reportFailure(error);
    io.stderr(`${failure.line}\n`);
    return failure.exitCode;
  }
}
