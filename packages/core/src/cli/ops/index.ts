import { UsageError } from "../../errors";
import type { CliIo } from "../cli-io";
import { reportFailure } from "../report-failure";
import { defaultOpsContext, type OpsContext } from "./ops-context";

/** The operations commands' usage, shown by `context-cleaner help`. */
export const OPS_USAGE = `Operations (database from --database or DATABASE_URL):
  context-cleaner status --org <org> --thread <thread> [--json]   the org's mode, the pass record, digests, chars saved
  context-cleaner status --org <org> [--json]                     the org's mode and policy, what its digests save (in shadow: would save)
  context-cleaner policy get --org <org> [--json]                 the org's policy (mode, overrides, tool rules, who set it)
  context-cleaner policy set --org <org> --by <who> [--at <iso>] [--mode on|shadow|off] [--max-calls N]
      [--daily-budget-usd X] [--trigger-chars N] [--recency-exchanges N] [--digest-cap N]
      [--tool-rules <json>] [--policy <json>]                      validate and store it, audited
      (a protectedArgs pattern is a regular expression without backreferences or lookarounds,
       at most 256 instructions, matched in linear time within an argument's first 4,096 chars)
  context-cleaner policy reset --org <org>                         delete it: the deployment's defaults
  context-cleaner purge --org <org> --thread <thread>              delete the thread's digests (recovery)
  context-cleaner purge --org <org> --sha256 <hash>                one content's digests, in every thread of the org
  context-cleaner purge --org <org> --all [--delete-policy]        all of the org's digests (and its policy row)
      (turns up to the database's now count as covered; a pass in flight loses its lease and writes nothing)
  context-cleaner dlq list [--limit N] [--json]                    dead letters and why (--dlq-url or DIGEST_DLQ_URL)
  context-cleaner dlq redrive [--limit N] [--include-poison]       back to the digest queue (--queue-url or DIGEST_QUEUE_URL)
  context-cleaner sweep [--dry-run] [--checkpoints <url>] [--json] what the nightly sweep enqueues (each org its share)
  context-cleaner worker --queue-url <url> --database-url <url> --checkpoint-database-url <url>
                                                                   the digest worker outside Lambda, until SIGTERM/SIGINT
                                                                   (context-cleaner worker --help lists its settings)
  context-cleaner migrate [--database-url <url>]                   apply the storage migrations to DATABASE_URL's database
                                                                   (as the schema's owner; context-cleaner migrate --help)`;

type OpsCommand = (args: string[], context: OpsContext) => Promise<void>;

// Loaded on use: `clean` never loads the queue or sweep code.
const COMMANDS = {
  status: () => import("./status").then((module) => module.statusCommand),
  purge: () => import("./purge").then((module) => module.purgeCommand),
  policy: () => import("./policy").then((module) => module.policyCommand),
  dlq: () => import("./dlq").then((module) => module.dlqCommand),
  sweep: () => import("./sweep").then((module) => module.sweepCommand),
  worker: () => import("./worker").then((module) => module.workerCommand),
  migrate: () => import("./migrate").then((module) => module.migrateCommand),
} as const satisfies Record<string, () => Promise<OpsCommand>>;

/** Whether `command` is one of the operations commands. */
export function isOpsCommand(command: string | undefined): command is keyof typeof COMMANDS {
  return command !== undefined && Object.hasOwn(COMMANDS, command);
}

/**
 * Runs an operations command (`argv[0]` is the command). Returns the exit code, as `main`
 * does: 0 done, 2 bad input, 1 the environment failed or a bug.
 */
export async function runOpsCommand(
  argv: readonly string[],
  io: CliIo,
  context: OpsContext = defaultOpsContext(io),
): Promise<number> {
  const [command, ...args] = argv;
  try {
    if (!isOpsCommand(command)) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    await (await COMMANDS[command]())(args, context);
    return 0;
  } catch (error) {
    // parseArgs refuses an unknown or malformed flag with a TypeError carrying this code.
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS")) {
      io.stderr(`context-cleaner: ${(error as Error).message}\n`);
      return 2;
    }
    const failure = reportFailure(error);
    io.stderr(`${failure.line}\n`);
    return failure.exitCode;
  }
}
