import type { Message, ToolCall } from "@context-cleaner/assembler";
import {
  build,
  type CommandOutput,
  catFile,
  coverage,
  type Failure,
  gitLogOneline,
  gitLogPatch,
  hex,
  jobLog,
  lint,
  makeFailure,
  npmLs,
  numbered,
  type Repository,
  ripgrep,
  type SourceFile,
  sedRange,
  typecheck,
  type Vocabulary,
  vitestRun,
  writeRepository,
} from "./code-writer";
import type { Fact } from "./contract-writer";
import { FigureRegistry } from "./figures";
import { type FactSource, probeCandidates, probesOverEveryResult, threadText } from "./probes";
import { SeededRandom } from "./seeded-random";
import { probesPerResult } from "./single-turn";
import type { ThreadFixture } from "./thread";

/**
 * Coding-agent threads: ONE user turn of a coding agent fixing a bug in a synthetic
 * TypeScript repository. Many short shell outputs (`bash` or `shell`: the command, its
 * stdout, its exit status; under 8,000 chars), some long ones (20,000–50,000 chars: a
 * verbose test log, a file dump, `git log -p`, a job's log, `npm ls`), `read_file` reads
 * (whole files, and one file page by page), a few `edit_file` edits, a timed-out command
 * retried, and a command run twice in a row with the same output. The shell tool is not
 * idempotent (the tool policy's default for an unknown tool: kind `other`). Probes are
 * spread over every output: error messages, file paths with line and column, test names,
 * figures.
 */

export interface CodingPlan {
  name: string;
  seed: number;
  description: string;
  /** The shell tool's name: an unknown tool to the default policy (`other`, not idempotent). */
  shellTool: "bash" | "shell";
  project: string;
  system: string;
  task: string;
  vocabulary: Vocabulary;
  /** The job whose log shows the symptom, e.g. `invoice-replay`. */
  job: string;
  closing: string;
}

/** Chars of one `read_file` page when a file is read page by page. */
export const READ_FILE_PAGE_CHARS = 16_000;

const TIMEOUT_MS = 120_000;

function shellResult(command: string, output: CommandOutput): string {
  return `$ ${command}\n${output.stdout}[exit status: ${output.exit}]`;
}

function packageJson(random: SeededRandom, figures: FigureRegistry, repository: Repository): CommandOutput {
  const dependencies = ["zod", "pino", "undici", "decimal.js", "date-fns"].map((name) => [
    name,
    figures.claim((r) => `"${name}": "^${r.integer(1, 9)}.${r.integer(0, 30)}.${r.integer(0, 20)}"`),
  ]);
  const stdout = `{
  "name": "${repository.name}",
  "version": "4.12.0",
  "type": "module",
  "scripts": {
    "build": "tsdown",
    "test": "vitest run",
    "test:e2e": "vitest run --project e2e",
    "lint": "eslint src test",
    "typecheck": "tsc --noEmit"
  },
  "dependencies": {
${dependencies.map(([, line]) => `    ${line}`).join(",\n")}
  },
  "engines": { "node": ">=${random.integer(18, 22)}" }
}
`;
  return {
    stdout,
    exit: 0,
    facts: dependencies.slice(0, 2).map(([name, line]) => ({
      question: `Which version range of ${name} does package.json ask for?`,
      answer: line as string,
    })),
  };
}

function gitStatus(figures: FigureRegistry, job: string): CommandOutput {
  const branch = figures.claim((r) => `fix/${job}-${hex(r, 5)}`);
  return {
    stdout: `On branch ${branch}\nYour branch is up to date with 'origin/main'.\n\nnothing to commit, working tree clean\n`,
    exit: 0,
    facts: [{ question: "Which branch is checked out?", answer: `On branch ${branch}` }],
  };
}

function gitShowStat(
  random: SeededRandom,
  figures: FigureRegistry,
  repository: Repository,
  index: number,
): CommandOutput {
  const commit = repository.commits[index] as Repository["commits"][number];
  const rows = commit.files.map((file) => {
    const changed = random.integer(2, 40);
    return ` ${file.path} | ${changed} ${"+".repeat(Math.min(changed, 20))}${"-".repeat(random.integer(0, 6))}`;
  });
  const summary = figures.claim(
    (r) =>
      `${commit.files.length} file${commit.files.length === 1 ? "" : "s"} changed, ${r.integer(2, 90)} insertions(+), ${r.integer(1, 40)} deletions(-)`,
  );
  return {
    stdout: `commit ${commit.hash}\nAuthor: ${commit.author}\nDate:   ${commit.date}\n\n    ${commit.message}\n\n${rows.join("\n")}\n ${summary}\n`,
    exit: 0,
    facts: [{ question: `How many lines did the commit “${commit.message}” change?`, answer: summary }],
  };
}

function nodeCheck(figures: FigureRegistry): { command: string; output: CommandOutput } {
  let expression = "";
  const printed = figures.claim((r) => {
    const value = r.integer(1_000, 99_999);
    expression = `${value}.995 * 100`;
    return `${value}99.49999999999`;
  });
  return {
    command: `node -e "console.log(${expression}, Math.round(${expression}))"`,
    output: {
      stdout: `${printed} ${printed.slice(0, printed.indexOf("."))}\n`,
      exit: 0,
      facts: [{ question: `What does node print for ${expression}?`, answer: printed }],
    },
  };
}

function listing(
  random: SeededRandom,
  figures: FigureRegistry,
  files: readonly SourceFile[],
  directory: string,
): CommandOutput {
  const facts: Fact[] = [];
  const lines = [`total ${random.integer(40, 400)}`];
  for (const file of files) {
    const name = file.path.slice(directory.length + 1);
    const entry = figures.claim(
      (r) =>
        `${file.lines.join("\n").length + r.integer(0, 9)} Mar ${r.integer(1, 4)} ${String(r.integer(8, 18)).padStart(2, "0")}:${String(r.integer(0, 59)).padStart(2, "0")} ${name}`,
    );
    lines.push(`-rw-r--r--  1 dev  dev  ${entry}`);
    facts.push({ question: `What size and date does ls show for ${file.path}?`, answer: entry });
  }
  return { stdout: `${lines.join("\n")}\n`, exit: 0, facts: facts.slice(0, 2) };
}

function lineCounts(files: readonly SourceFile[]): CommandOutput {
  const rows = files.map((file) => `${String(file.lines.length).padStart(5)} ${file.path}`);
  const total = files.reduce((sum, file) => sum + file.lines.length, 0);
  return {
    stdout: `${rows.join("\n")}\n${String(total).padStart(5)} total\n`,
    exit: 0,
    facts: files.slice(0, 2).map((file) => ({
      question: `How many lines does ${file.path} have?`,
      answer: `${file.lines.length} ${file.path}`,
    })),
  };
}

function configFile(random: SeededRandom, figures: FigureRegistry, job: string): CommandOutput {
  const keys = ["retryDelayMs", "maxAttempts", "batchSize", "graceDays", "timeoutMs"];
  const entries = keys.map((key) => figures.claim((r) => `"${key}": ${r.integer(2, 90_000)}`));
  return {
    stdout: `{\n  "job": "${job}",\n  "region": "${random.pick(["eu-west-1", "us-east-2", "ap-southeast-2"])}",\n${entries.map((entry) => `  ${entry}`).join(",\n")}\n}\n`,
    exit: 0,
    facts: entries.slice(0, 2).map((entry) => ({
      question: `What does config/${job}.json set ${entry.split(":")[0]} to?`,
      answer: entry,
    })),
  };
}

function changelog(figures: FigureRegistry, repository: Repository): CommandOutput {
  const facts: Fact[] = [];
  const lines = [`# ${repository.name}`, ""];
  repository.commits.slice(20, 32).forEach((commit, index) => {
    if (index % 3 === 0) {
      const heading = figures.claim(
        (r) =>
          `## 4.${11 - index / 3}.${r.integer(0, 9)} (2025-0${2 - Math.floor(index / 9)}-${String(r.integer(10, 28))})`,
      );
      lines.push("", heading, "");
      facts.push({ question: "Which release does the changelog list?", answer: heading });
    }
    lines.push(`- ${commit.message}`);
  });
  return { stdout: `${lines.join("\n")}\n`, exit: 0, facts: facts.slice(0, 2) };
}

function replay(figures: FigureRegistry, job: string): CommandOutput {
  const summary = figures.claim(
    (r) =>
      `replayed ${r.integer(1, 9)},${String(r.integer(0, 999)).padStart(3, "0")} entries: 0 mismatches (total $${r.integer(1, 9)},${String(r.integer(0, 999)).padStart(3, "0")},${String(r.integer(0, 999)).padStart(3, "0")}.${String(r.integer(0, 99)).padStart(2, "0")})`,
  );
  return {
    stdout: `${job}: loading entries of 2025-03-01\n${summary}\n`,
    exit: 0,
    facts: [{ question: `What did the ${job} replay report?`, answer: summary }],
  };
}

function e2e(figures: FigureRegistry, passed: boolean): CommandOutput {
  if (!passed) {
    return {
      stdout: ` RUN  v3.2.4 (e2e)\n\nError: command timed out after ${TIMEOUT_MS} ms\n`,
      exit: 124,
      facts: [],
    };
  }
  const summary = figures.claim((r) => {
    const passed = r.integer(8, 30);
    return `Tests ${passed} passed (${passed})`;
  });
  const took = figures.claim((r) => `Duration ${(r.integer(2_000, 9_000) / 100).toFixed(2)}s`);
  return {
    stdout: ` RUN  v3.2.4 (e2e)\n\n ✓ e2e/replay.e2e.ts (4 tests) 9120ms\n ✓ e2e/api.e2e.ts (8 tests) 12044ms\n\n      ${summary}\n   ${took}\n`,
    exit: 0,
    facts: [
      { question: "How many e2e tests passed?", answer: summary },
      { question: "How long did the e2e run take?", answer: took },
    ],
  };
}

function diff(
  random: SeededRandom,
  figures: FigureRegistry,
  edits: readonly Edit[],
): { stat: CommandOutput; patch: CommandOutput } {
  const stat = edits.map((edit) => ` ${edit.file.path} | 2 +-`);
  const summary = `${edits.length} files changed, ${edits.length} insertions(+), ${edits.length} deletions(-)`;
  const facts: Fact[] = [];
  const patch: string[] = [];
  for (const edit of edits) {
    const at = Math.max(1, edit.line - 3);
    const header = figures.claim((r) => `@@ -${at},7 +${at + r.integer(0, 2)},7 @@`);
    patch.push(
      `diff --git a/${edit.file.path} b/${edit.file.path}`,
      `index ${hex(random, 7)}..${hex(random, 7)} 100644`,
      `--- a/${edit.file.path}`,
      `+++ b/${edit.file.path}`,
      `${header} export function ${random.pick(edit.file.functions)}`,
      ...edit.file.lines.slice(Math.max(0, edit.line - 4), edit.line - 1).map((line) => ` ${line}`),
      `-${edit.before}`,
      `+${edit.after}`,
      ...edit.file.lines.slice(edit.line, edit.line + 3).map((line) => ` ${line}`),
    );
    facts.push({ question: `Which hunk of ${edit.file.path} does git diff show?`, answer: header });
  }
  return {
    stat: { stdout: `${stat.join("\n")}\n ${summary}\n`, exit: 0, facts: [] },
    patch: { stdout: `${patch.join("\n")}\n`, exit: 0, facts },
  };
}

interface Edit {
  file: SourceFile;
  /** 1-based line replaced. */
  line: number;
  before: string;
  after: string;
}

/** An edit of one line of `file` near `around` (a line holding a number or a condition). */
function makeEdit(random: SeededRandom, file: SourceFile, around: number): Edit {
  const start = Math.min(Math.max(1, around), file.lines.length);
  let line = start;
  for (let index = start; index <= file.lines.length; index++) {
    if (/\d/.test(file.lines[index - 1] ?? "") && (file.lines[index - 1] ?? "").trim().length > 12) {
      line = index;
      break;
    }
  }
  const before = file.lines[line - 1] ?? "";
  const after = before.replace(/\d+/, (digits) => String(Number(digits) + random.integer(1, 3)));
  return { file, line, before, after: after === before ? `${before} // checked` : after };
}

/** Builds a coding-agent thread from its plan. Deterministic: the same plan gives the same bytes. */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a seeded script: its random draws, in this order, fix the generated bytes; it reads top to bottom
export function buildCodingThread(plan: CodingPlan): ThreadFixture {
  const random = new SeededRandom(plan.seed);
  const figures = new FigureRegistry(random.fork(1));
  const repository = writeRepository(random.fork(2), figures, plan.project, plan.vocabulary);
  const r = random.fork(3);
  const files = repository.files;
  const rest = files.slice(1);
  const bug = r.pick(rest);
  const second = r.pick(rest.filter((file) => file !== bug));
  const paged = [...rest]
    .filter((file) => file !== bug && file !== second)
    .sort((left, right) => right.lines.length - left.lines.length)[0] as SourceFile;
  const failures: Failure[] = [
    makeFailure(r, figures, bug, 0),
    makeFailure(r, figures, bug, 1),
    makeFailure(r, figures, second, 2),
  ];
  const domainOf = (file: SourceFile) => file.path.split("/")[1] as string;
  const inDomain = (file: SourceFile) => files.filter((other) => domainOf(other) === domainOf(file));

  const messages: Message[] = [
    { role: "system", content: plan.system },
    { role: "user", content: plan.task },
  ];
  const sources: FactSource[] = [];
  let callNumber = 0;
  let saying = "";
  const say = (text: string) => {
    saying = text;
  };
  const call = (
    name: string,
    args: Record<string, unknown>,
    content: string,
    facts: readonly Fact[],
    status?: "error",
  ) => {
    const id = `call_${plan.name}_${String(++callNumber).padStart(3, "0")}`;
    const toolCall: ToolCall = { id, name, args };
    messages.push({ role: "assistant", content: saying, toolCalls: [toolCall] });
    saying = "";
    messages.push({ role: "tool", toolCallId: id, toolName: name, content, ...(status ? { status } : {}) });
    sources.push({ facts });
  };
  const shell = (command: string, output: CommandOutput, status?: "error") =>
    call(plan.shellTool, { command }, shellResult(command, output), output.facts, status);
  const readFile = (file: SourceFile, offset?: number) => {
    const text = numbered(file);
    const content = offset === undefined ? text : text.slice(offset, offset + READ_FILE_PAGE_CHARS);
    call(
      "read_file",
      { path: file.path, ...(offset === undefined ? {} : { offset }) },
      content,
      file.facts.filter((fact) => content.includes(fact.answer)),
    );
  };
  const edits: Edit[] = [];
  const edit = (file: SourceFile, around: number) => {
    const change = makeEdit(r, file, around);
    edits.push(change);
    call(
      "edit_file",
      { path: file.path, old_string: change.before, new_string: change.after },
      `Edited ${file.path}: 1 replacement at line ${change.line}.`,
      [],
    );
  };
  /** Prints a function of `file`: from the start of the one around line `from`, 30 to 70 lines. */
  const sed = (file: SourceFile, from: number) => {
    let start = Math.max(1, Math.min(from, file.lines.length - 10));
    while (start > 1 && !(file.lines[start - 1] ?? "").startsWith("export function")) start--;
    const to = Math.min(file.lines.length, start + r.integer(30, 70));
    shell(`sed -n '${start},${to}p' ${file.path}`, sedRange(file, start, to));
  };
  const grep = (symbol: string) => shell(`rg -n "${symbol}" src | head -n 60`, ripgrep(files, symbol, 60));
  const vitest = (targets: readonly SourceFile[], failing: readonly Failure[], label: string) =>
    shell(`npx vitest run ${label}`, vitestRun(r, figures, repository, targets, failing, false));
  const lineOf = (frame: string) => Number(frame.split(":")[1] ?? 1);
  const constant = (file: SourceFile) => (r.pick(file.constants) as SourceFile["constants"][number]).name;

  const config = configFile(r, figures, plan.job);
  const [firstBig, secondBig] = files.filter((file) => file.lines.length >= 600) as [SourceFile, SourceFile];
  const someFile = () => r.pick(rest);

  say("Looking at the repository and the failing tests first.");
  shell("git status", gitStatus(figures, plan.job));
  shell("git log --oneline -n 15", gitLogOneline(repository, 15));
  shell("cat package.json", packageJson(r, figures, repository));
  shell("npm test -- --reporter=verbose", vitestRun(r, figures, repository, files, failures, true));
  const quiet = files.find(
    (file) => domainOf(file) !== domainOf(bug) && domainOf(file) !== domainOf(second),
  ) as SourceFile;
  vitest(inDomain(quiet), [], `test/${domainOf(quiet)}`);
  say(`Three tests fail. The ${plan.job} log should show the symptom.`);
  shell(`cat logs/${plan.job}-2025-03-01.log`, jobLog(r, figures, plan.job, 420));
  shell(`tail -n 40 logs/${plan.job}-2025-02-28.log`, jobLog(r, figures, plan.job, 40));
  grep(bug.functions[0] as string);
  readFile(bug);
  vitest([bug], failures.slice(0, 2), bug.testPath);
  grep(constant(bug));
  shell(`cat config/${plan.job}.json`, config);
  sed(paged, r.integer(20, 120));
  sed(someFile(), r.integer(1, 60));
  say("The failures started recently; checking what changed.");
  shell("git log -p -n 20", gitLogPatch(r, figures, repository, 20, 0));
  shell(`git show --stat ${repository.commits[1]?.hash.slice(0, 7)}`, gitShowStat(r, figures, repository, 1));
  shell(`git show --stat ${repository.commits[4]?.hash.slice(0, 7)}`, gitShowStat(r, figures, repository, 4));
  const check = nodeCheck(figures);
  shell(check.command, check.output);
  shell(`ls -la src/${domainOf(bug)}`, listing(r, figures, inDomain(bug), `src/${domainOf(bug)}`));
  shell(`ls -la src/${domainOf(second)}`, listing(r, figures, inDomain(second), `src/${domainOf(second)}`));
  shell(`wc -l src/${domainOf(paged)}/*.ts`, lineCounts(inDomain(paged)));
  vitest(
    inDomain(bug),
    failures.filter((failure) => failure.file.path.startsWith(`src/${domainOf(bug)}/`)),
    `test/${domainOf(bug)}`,
  );
  sed(bug, lineOf(failures[0]?.frame ?? "") - 20);
  grep(constant(someFile()));
  say(`Reading ${paged.path}, where the helper lives, page by page.`);
  const pages = Math.ceil(numbered(paged).length / READ_FILE_PAGE_CHARS);
  for (let page = 0; page < pages; page++) readFile(paged, page * READ_FILE_PAGE_CHARS);
  shell(`cat ${firstBig.path}`, catFile(firstBig));
  edit(paged, r.integer(20, paged.lines.length - 20));
  edit(bug, lineOf(failures[0]?.frame ?? ""));
  vitest([bug], [], bug.testPath);
  say("The first two pass. Now the TypeError.");
  grep(second.functions[0] as string);
  readFile(second);
  shell("head -n 40 CHANGELOG.md", changelog(figures, repository));
  grep(constant(second));
  shell("git log -p -n 20 --skip=20", gitLogPatch(r, figures, repository, 20, 20));
  sed(someFile(), r.integer(1, 60));
  shell(`cat ${secondBig.path}`, catFile(secondBig));
  vitest([second], failures.slice(2), second.testPath);
  sed(second, lineOf(failures[2]?.frame ?? "") - 25);
  edit(second, lineOf(failures[2]?.frame ?? ""));
  vitest([second], [], second.testPath);
  shell("npx tsc --noEmit", typecheck(r, figures, [bug, second, paged], 3));
  const check2 = nodeCheck(figures);
  shell(check2.command, check2.output);
  sed(second, r.integer(10, second.lines.length - 40));
  edit(second, r.integer(10, second.lines.length - 10));
  shell("npx tsc --noEmit", typecheck(r, figures, [], 0));
  shell("npm run lint", lint(r, figures, repository, [bug, second, paged]));
  edit(bug, r.integer(10, bug.lines.length - 10));
  sed(someFile(), r.integer(1, 60));
  vitest(inDomain(second), [], `test/${domainOf(second)}`);
  vitest(inDomain(paged), [], `test/${domainOf(paged)}`);
  shell(`cat config/${plan.job}.json`, config);
  say("Types and lint are clean. Running the end-to-end suite.");
  shell("npm run test:e2e", e2e(figures, false), "error");
  shell("npm run test:e2e", e2e(figures, true));
  shell("npx vitest run --coverage", coverage(r, figures, repository));
  shell("npm ls --all", npmLs(r, figures, repository, 900));
  shell("npm run build", build(r, figures, repository));
  shell(`node scripts/replay-${plan.job}.mjs --date 2025-03-01`, replay(figures, plan.job));
  shell(`cat logs/${plan.job}-replay.log`, jobLog(r, figures, plan.job, 250));
  grep(constant(paged));
  sed(someFile(), r.integer(1, 60));
  const changes = diff(r, figures, edits);
  shell("git diff --stat", changes.stat);
  shell("git diff --stat", changes.stat);
  shell("git diff", changes.patch);
  shell("npm test", vitestRun(r, figures, repository, files, [], false));
  messages.push({ role: "assistant", content: plan.closing });

  const text = threadText(messages);
  return {
    name: plan.name,
    seed: plan.seed,
    description: plan.description,
    messages,
    probes: probesOverEveryResult(text, probeCandidates(text, sources), probesPerResult),
  };
}

const SYSTEM = (tool: string) =>
  `You are a careful coding agent working in a TypeScript repository. Run commands with ${tool}(command); each call returns the command, its output and its exit status. Read files with read_file(path, offset) and change them with edit_file(path, old_string, new_string). Quote error messages, paths and figures exactly.`;

/** The coding-agent threads (generated at run time, never checked in). */
export const CODING_PLANS: readonly CodingPlan[] = [
  {
    name: "coding-rounding-fix",
    seed: 6101,
    description:
      "One user turn of a coding agent (bash) fixing one-cent mismatches in an invoicing service: about 50 short command outputs, long ones (a verbose test log, a job log, git log -p, a file dump, npm ls), file reads and edits.",
    shellTool: "bash",
    project: "ledgerline",
    system: SYSTEM("bash"),
    task: "The nightly invoice replay reports one-cent mismatches on prorated downgrades since yesterday's release, and three tests fail. Find the cause, fix it, and get the tests, the type check, the linter and the build green.",
    vocabulary: {
      domains: ["billing", "currency", "invoices", "ledger", "tax", "reports"],
      modules: [
        "proration",
        "rounding",
        "schedule",
        "totals",
        "adjustments",
        "snapshot",
        "calendar",
        "limits",
        "serializer",
        "export",
      ],
      nouns: [
        "credit",
        "total",
        "region",
        "cents",
        "period",
        "line",
        "invoice",
        "entry",
        "rate",
        "refund",
        "payout",
        "snapshot",
      ],
    },
    job: "invoice-replay",
    closing:
      "Fixed: the proration credit now rounds half-even before the line split, the three failing tests pass, and the type check, the linter, the build and the replay are clean.",
  },
  {
    name: "coding-retry-schedule",
    seed: 6202,
    description:
      "One user turn of a coding agent (shell) fixing a webhook retry schedule: about 50 short command outputs, long ones (a verbose test log, a delivery log, git log -p, a file dump, npm ls), file reads and edits.",
    shellTool: "shell",
    project: "relaymesh",
    system: SYSTEM("shell"),
    task: "Webhook deliveries are retried too aggressively since the scheduler refactor and three tests fail. Fix the retry schedule without changing the public API, and get the tests, the type check, the linter and the build green.",
    vocabulary: {
      domains: ["webhooks", "scheduler", "delivery", "signing", "queue", "metrics"],
      modules: [
        "retry",
        "backoff",
        "dispatch",
        "window",
        "limits",
        "clock",
        "registry",
        "encoder",
        "policy",
        "cursor",
      ],
      nouns: [
        "attempt",
        "window",
        "delay",
        "endpoint",
        "secret",
        "batch",
        "event",
        "cursor",
        "lease",
        "budget",
        "signature",
        "jitter",
      ],
    },
    job: "webhook-delivery",
    closing:
      "Fixed: the backoff doubles from the configured base again with jitter capped, the three failing tests pass, and the type check, the linter, the build and the delivery replay are clean.",
  },
];

/** Every coding-agent thread. Deterministic: the same bytes on every run and machine. */
export function generateCodingThreads(): ThreadFixture[] {
  return CODING_PLANS.map((plan) => buildCodingThread(plan));
}
