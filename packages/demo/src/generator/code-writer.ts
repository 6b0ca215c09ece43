import type { Fact } from "./contract-writer";
import type { FigureRegistry } from "./figures";
import type { SeededRandom } from "./seeded-random";

/**
 * A synthetic TypeScript repository for the coding-agent threads, and the outputs of the
 * commands an agent runs in it: test logs (verbose and short), file dumps, `git log`,
 * `git log -p`, `rg`, `tsc`, the linter, coverage, a build, `npm ls`, a job log. Every
 * output plants a few facts a probe may ask about (error messages, file paths with line
 * and column, test names, figures); each comes from the thread's registry, so it occurs
 * once unless the same output is shown twice. Deterministic for the generator's state.
 */

export interface SourceFile {
  /** `src/billing/proration.ts`. */
  path: string;
  /** `test/billing/proration.test.ts`. */
  testPath: string;
  functions: string[];
  constants: { name: string; value: string }[];
  /** The test names of its test file, unique in the repository. */
  tests: string[];
  /** The file's text, line by line. */
  lines: string[];
  /** Facts of the file's text: its constants and its functions' error messages. */
  facts: Fact[];
}

export interface Commit {
  hash: string;
  message: string;
  author: string;
  date: string;
  /** Files the commit touched. */
  files: SourceFile[];
}

export interface Repository {
  name: string;
  root: string;
  files: SourceFile[];
  /** Newest first. */
  commits: Commit[];
}

/** What a command printed, its exit status, and the facts it planted. */
export interface CommandOutput {
  stdout: string;
  exit: number;
  facts: Fact[];
}

const VERBS = [
  "apply",
  "compute",
  "resolve",
  "normalize",
  "format",
  "parse",
  "build",
  "split",
  "merge",
  "validate",
  "schedule",
  "round",
  "allocate",
  "reconcile",
  "emit",
  "load",
  "encode",
  "settle",
] as const;

const TEST_VERBS = [
  "rounds",
  "credits",
  "splits",
  "rejects",
  "keeps",
  "carries",
  "allocates",
  "formats",
  "retries",
  "skips",
  "merges",
  "emits",
  "caps",
  "defers",
  "orders",
  "signs",
] as const;

const TEST_OBJECTS = [
  "the unused days of an annual plan",
  "a zero-amount line",
  "the remainder cent to the last line",
  "a negative adjustment",
  "JPY amounts without minor units",
  "an entry crossing a DST boundary",
  "a reverse-charge customer",
  "a payload larger than the limit",
  "duplicate idempotency keys",
  "an expired signing secret",
  "a batch of 500 items",
  "the first attempt after a restart",
  "a cancelled subscription",
  "mixed-currency lines",
  "an empty schedule",
  "a leap-day period",
  "a partial refund",
  "an out-of-order event",
  "the default grace period",
  "a disabled endpoint",
] as const;

const TEST_CONDITIONS = [
  "",
  "when the period has 31 days",
  "after a mid-cycle downgrade",
  "with half-even rounding",
  "under the legacy flag",
  "across a month boundary",
  "for a tenant in another region",
  "when the clock is frozen",
  "with the cache warm",
  "on the second retry",
  "in strict mode",
  "for the EU tax profile",
] as const;

const AUTHORS = ["Priya Raman", "Jonas Weber", "Ana Ruiz", "Tom Okafor", "Mei Lin", "Sam Carter"] as const;
const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri"] as const;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;

export function hex(random: SeededRandom, length: number): string {
  let text = "";
  for (let index = 0; index < length; index++) text += random.integer(0, 15).toString(16);
  return text;
}

/** Fisher–Yates, from the generator's state. */
function shuffled<T>(random: SeededRandom, items: readonly T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = random.integer(0, index);
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

function camel(...words: string[]): string {
  return words.map((word, index) => (index === 0 ? word : word[0]?.toUpperCase() + word.slice(1))).join("");
}

function snake(...words: string[]): string {
  return words.map((word) => word.toUpperCase()).join("_");
}

function underscored(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, "_");
}

/** The words a repository's identifiers are made of. */
export interface Vocabulary {
  /** Directories under src/, e.g. `billing`. */
  domains: readonly string[];
  /** File names, e.g. `proration`. */
  modules: readonly string[];
  /** Nouns of identifiers, e.g. `credit`. */
  nouns: readonly string[];
}

function statement(
  random: SeededRandom,
  fn: string,
  names: readonly string[],
  constants: readonly string[],
): string[] {
  const local = random.pick(["total", "amount", "cents", "window", "attempt", "offset", "count", "limit"]);
  const other = random.pick(names);
  const constant = random.pick(constants);
  switch (random.integer(0, 6)) {
    case 0:
      return [`  const ${local} = ${other}(input, ${constant});`];
    case 1:
      return [`  if (${local} > ${constant}) return clamp(${local}, 0, ${constant});`];
    case 2:
      return [
        `  for (const item of input.items) {`,
        `    ${local} += Math.round((item.${random.pick(["cents", "weight", "delayMs", "quantity"])} * ${random.integer(2, 99)}) / 100);`,
        "  }",
      ];
    case 3:
      return [
        `  logger.debug({ ${local}, ${random.pick(["tenant", "region", "endpoint", "period"])} }, "${fn} ${random.pick(["start", "done", "skip", "retry"])}");`,
      ];
    case 4:
      return [`  const ${local}Next = ${local} ${random.pick(["+", "-", "*"])} ${random.integer(1, 60)};`];
    case 5:
      return [`  assert(${local} >= 0, "${fn}: negative ${local}");`];
    default:
      return [
        `  // ${random.pick(["keep in step with", "see", "mirrors", "was"])} ${other}() ${random.pick(["in the legacy path", "before the refactor", "for old tenants", "until v4"])}`,
      ];
  }
}

/** Writes one source file: imports, constants, exported functions with bodies, each with its own error message. */
function writeSource(
  random: SeededRandom,
  figures: FigureRegistry,
  vocabulary: Vocabulary,
  path: string,
  targetLines: number,
): Pick<SourceFile, "functions" | "constants" | "lines" | "facts"> {
  const functions: string[] = [];
  const count = Math.max(3, Math.round(targetLines / 40));
  for (let index = 0; index < count; index++) {
    functions.push(
      figures.claim((r) => camel(r.pick(VERBS), r.pick(vocabulary.nouns), r.pick(vocabulary.nouns))),
    );
  }
  const constants = Array.from({ length: random.integer(2, 4) }, () => {
    const name = figures.claim((r) =>
      snake(
        r.pick(["max", "min", "default", "grace", "retry", "batch"]),
        r.pick(vocabulary.nouns),
        r.pick(["ms", "cents", "days", "limit", "size"]),
      ),
    );
    const value = underscored(random.integer(3, 2_000_000));
    return { name, value };
  });
  const facts: Fact[] = constants.map((constant) => ({
    question: `What value does ${path} give ${constant.name}?`,
    answer: `${constant.name} = ${constant.value}`,
  }));
  const lines = [
    `import { assert, clamp } from "../lib/assert";`,
    `import { logger } from "../lib/logger";`,
    `import type { ${camel(random.pick(vocabulary.nouns), "input")} as Input } from "./types";`,
    "",
    ...constants.map((constant) => `export const ${constant.name} = ${constant.value};`),
    "",
  ];
  for (const fn of functions) {
    // The function's name is claimed already: claim the rest, which makes the message unique.
    const message = `${fn}: ${figures.claim(
      (r) =>
        `${r.pick(["no", "an unknown", "a stale", "a second"])} ${r.pick(vocabulary.nouns)} for ${r.pick(["tenant", "period", "endpoint", "region", "batch"])} ${hex(r, 6)}`,
    )}`;
    facts.push({ question: `What error does ${fn} in ${path} throw?`, answer: message });
    const words = fn.replace(/([A-Z])/g, " $1").toLowerCase();
    lines.push(
      "/**",
      ` * ${words[0]?.toUpperCase()}${words.slice(1)} for one input; pure, no I/O.`,
      " */",
      `export function ${fn}(input: Input, limit = ${random.pick(constants).name}): number {`,
      `  if (input.items.length === 0) throw new RangeError("${message}");`,
    );
    const body = random.integer(
      Math.max(4, Math.round(targetLines / count) - 12),
      Math.round(targetLines / count),
    );
    for (let line = 0; line < body; ) {
      const next = statement(
        random,
        fn,
        functions,
        constants.map((constant) => constant.name),
      );
      lines.push(...next);
      line += next.length;
    }
    lines.push("  return limit;", "}", "");
  }
  return { functions, constants, lines, facts };
}

/** A repository: a few files per domain, each with its test names, and a history of commits. */
export function writeRepository(
  random: SeededRandom,
  figures: FigureRegistry,
  name: string,
  vocabulary: Vocabulary,
): Repository {
  const files: SourceFile[] = [];
  for (const domain of vocabulary.domains) {
    const modules = shuffled(random, vocabulary.modules).slice(0, random.integer(4, 6));
    for (const module of modules) {
      const path = `src/${domain}/${module}.ts`;
      // Each domain's first file is a big one (a file dump of 30,000+ chars).
      const written = writeSource(
        random,
        figures,
        vocabulary,
        path,
        module === modules[0] ? 700 : random.integer(90, 420),
      );
      const tests = Array.from({ length: random.integer(10, 24) }, () =>
        figures.claim(
          (r) =>
            `${r.pick(TEST_VERBS)} ${r.pick(TEST_OBJECTS)}${(() => {
              const condition = r.pick(TEST_CONDITIONS);
              return condition === "" ? "" : ` ${condition}`;
            })()}`,
        ),
      );
      files.push({ path, testPath: `test/${domain}/${module}.test.ts`, tests, ...written });
    }
  }
  const commits: Commit[] = Array.from({ length: 60 }, (_, index) => {
    const touched = Array.from({ length: random.integer(1, 3) }, () => random.pick(files));
    const fn = random.pick((touched[0] as SourceFile).functions);
    return {
      hash: figures.claim((r) => hex(r, 40)),
      message: `${random.pick(["Fix", "Refactor", "Speed up", "Harden", "Simplify", "Document"])} ${fn} ${random.pick(["rounding", "retries", "edge cases", "logging", "types", "defaults"])} (#${random.integer(300, 999)})`,
      author: random.pick(AUTHORS),
      date: `${random.pick(WEEKDAYS)} ${MONTHS[2 - Math.floor(index / 25)] ?? "Jan"} ${28 - (index % 25)} ${String(random.integer(8, 19)).padStart(2, "0")}:${String(random.integer(0, 59)).padStart(2, "0")}:${String(random.integer(0, 59)).padStart(2, "0")} 2025 +0100`,
      files: touched,
    };
  });
  return { name, root: `/home/dev/${name}`, files, commits };
}

/** A file as `read_file` returns it: each line after its number. */
export function numbered(file: SourceFile): string {
  return `${file.lines.map((line, index) => `${String(index + 1).padStart(6)}  ${line}`).join("\n")}\n`;
}

/** The facts of a source file that `text` (some of its lines) shows. */
export function factsInLines(file: SourceFile, text: string): Fact[] {
  return file.facts.filter((fact) => text.includes(fact.answer));
}

/** A failing test: where, the assertion's message, and the stack frame in the source. */
export interface Failure {
  file: SourceFile;
  test: string;
  message: string;
  /** `src/billing/proration.ts:148:23`. */
  frame: string;
  /** `test/billing/proration.test.ts:88:41`. */
  testFrame: string;
}

/** A failure of one of `file`'s tests, with a message and frames no other output has. */
export function makeFailure(
  random: SeededRandom,
  figures: FigureRegistry,
  file: SourceFile,
  kind: number,
): Failure {
  const test = random.pick(file.tests);
  const expected = random.integer(10_000, 990_000);
  const message = figures.claim((r) =>
    kind % 3 === 0
      ? `AssertionError: expected ${expected - 1} to be ${expected} // Object.is equality`
      : kind % 3 === 1
        ? `AssertionError: expected [ ${expected}, ${expected}, ${expected} ] to deeply equal [ ${expected}, ${expected}, ${expected + 1} ]`
        : `TypeError: Cannot read properties of undefined (reading '${camel(r.pick(["tax", "retry", "signing", "billing"]), r.pick(["region", "window", "secret", "profile"]))}${r.integer(2, 9)}')`,
  );
  const frame = figures.claim((r) => `${file.path}:${r.integer(40, file.lines.length)}:${r.integer(3, 40)}`);
  const testFrame = figures.claim((r) => `${file.testPath}:${r.integer(20, 400)}:${r.integer(5, 48)}`);
  return { file, test, message, frame, testFrame };
}

function timeOfDay(figures: FigureRegistry): string {
  return figures.claim(
    (r) =>
      `${String(r.integer(9, 17)).padStart(2, "0")}:${String(r.integer(0, 59)).padStart(2, "0")}:${String(r.integer(0, 59)).padStart(2, "0")}`,
  );
}

function seconds(figures: FigureRegistry, min: number, max: number): string {
  return figures.claim((r) => `${(r.integer(min * 100, max * 100) / 100).toFixed(2)}s`);
}

function describeOf(file: SourceFile): string {
  return file.functions[0] ?? "module";
}

/**
 * A vitest run over `files`: verbose (every test on its line) or the default reporter (a
 * line per file), the failures with their diffs and frames, the summary with its start
 * time and duration.
 */
// biome-ignore lint/complexity/useMaxParams: the seeded random source and the run's five facts, in the order the log prints them
export function vitestRun(
  random: SeededRandom,
  figures: FigureRegistry,
  repository: Repository,
  files: readonly SourceFile[],
  failures: readonly Failure[],
  verbose: boolean,
): CommandOutput {
  const facts: Fact[] = [];
  const lines = [` RUN  v3.2.4 ${repository.root}`, ""];
  let tests = 0;
  for (const file of files) {
    const failing = failures.filter((failure) => failure.file === file);
    tests += file.tests.length;
    const ms = random.integer(8, 400);
    lines.push(
      failing.length > 0
        ? ` ❯ ${file.testPath} (${file.tests.length} tests | ${failing.length} failed) ${ms}ms`
        : ` ✓ ${file.testPath} (${file.tests.length} tests) ${ms}ms`,
    );
    if (!verbose) {
      for (const failure of failing)
        lines.push(
          `   × ${describeOf(file)} > ${failure.test} ${random.integer(1, 30)}ms`,
          `     → ${failure.message}`,
        );
      continue;
    }
    for (const test of file.tests) {
      const failure = failing.find((candidate) => candidate.test === test);
      lines.push(`   ${failure ? "×" : "✓"} ${describeOf(file)} > ${test} ${random.integer(0, 40)}ms`);
      if (failure) lines.push(`     → ${failure.message}`);
    }
    if (file.tests.length > 0 && failing.length === 0) {
      facts.push({
        question: `Which tests does ${file.testPath} run?`,
        answer: `${describeOf(file)} > ${random.pick(file.tests)}`,
      });
    }
  }
  // The default reporter's runs here are short (`--reporter=dot`-like): the failures' frames only in verbose runs.
  if (verbose && failures.length > 0) {
    lines.push("", `⎯⎯⎯⎯⎯⎯⎯ Failed Tests ${failures.length} ⎯⎯⎯⎯⎯⎯⎯`, "");
    for (const failure of failures) {
      lines.push(
        ` FAIL  ${failure.file.testPath} > ${describeOf(failure.file)} > ${failure.test}`,
        failure.message,
        ` ❯ ${describeOf(failure.file)} ${failure.frame}`,
        ` ❯ ${failure.testFrame}`,
        "",
        `⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[${failures.indexOf(failure) + 1}/${failures.length}]⎯`,
        "",
      );
    }
  }
  const failedFiles = new Set(failures.map((failure) => failure.file)).size;
  const start = timeOfDay(figures);
  const duration = seconds(figures, verbose ? 20 : 1, verbose ? 90 : 19);
  lines.push(
    "",
    ` Test Files  ${failedFiles > 0 ? `${failedFiles} failed | ` : ""}${files.length - failedFiles} passed (${files.length})`,
    `      Tests  ${failures.length > 0 ? `${failures.length} failed | ` : ""}${tests - failures.length} passed (${tests})`,
    `   Start at  ${start}`,
    `   Duration  ${duration} (transform ${random.integer(100, 3_000)}ms, setup 0ms, collect ${random.integer(100, 9_000)}ms, tests ${random.integer(50, 30_000)}ms, environment 0ms, prepare ${random.integer(50, 900)}ms)`,
  );
  facts.push(
    { question: "At what time did this test run start?", answer: `Start at ${start}` },
    { question: "How long did this test run take?", answer: `Duration ${duration}` },
  );
  for (const failure of failures) {
    facts.push({ question: `With what error did “${failure.test}” fail?`, answer: failure.message });
    if (verbose) {
      facts.push(
        { question: `Where in the source did “${failure.test}” fail?`, answer: failure.frame },
        { question: `At which line of its test file did “${failure.test}” fail?`, answer: failure.testFrame },
      );
    }
  }
  return { stdout: `${lines.join("\n")}\n`, exit: failures.length > 0 ? 1 : 0, facts };
}

/** `git log --oneline -n <count>`. */
export function gitLogOneline(repository: Repository, count: number, skip = 0): CommandOutput {
  const commits = repository.commits.slice(skip, skip + count);
  return {
    stdout: `${commits.map((commit) => `${commit.hash.slice(0, 7)} ${commit.message}`).join("\n")}\n`,
    exit: 0,
    facts: commits.map((commit) => ({
      question: `Which commit is titled “${commit.message.replace(/ \(#\d+\)$/, "")}”?`,
      answer: `${commit.hash.slice(0, 7)} ${commit.message}`,
    })),
  };
}

function hunk(
  random: SeededRandom,
  file: SourceFile,
  figures: FigureRegistry,
): { text: string[]; header: string } {
  const at = random.integer(1, Math.max(1, file.lines.length - 12));
  const context = file.lines.slice(at - 1, at + 8);
  const header = figures.claim(
    (r) => `@@ -${at},${context.length} +${at},${context.length + r.integer(0, 3)} @@`,
  );
  const text = [header];
  context.forEach((line, index) => {
    if (index === 4) text.push(`-${line}`, `+${line.replace(/\d+/, (digits) => String(Number(digits) + 1))}`);
    else text.push(` ${line}`);
  });
  return { text, header };
}

/** `git log -p -n <count>`: each commit with its header and a hunk per file it touched. */
export function gitLogPatch(
  random: SeededRandom,
  figures: FigureRegistry,
  repository: Repository,
  count: number,
  skip: number,
): CommandOutput {
  const lines: string[] = [];
  const facts: Fact[] = [];
  for (const commit of repository.commits.slice(skip, skip + count)) {
    lines.push(
      `commit ${commit.hash}`,
      `Author: ${commit.author} <${commit.author.split(" ")[0]?.toLowerCase()}@example.dev>`,
      `Date:   ${commit.date}`,
      "",
      `    ${commit.message}`,
      "",
    );
    facts.push({
      question: `What is the full hash of the commit “${commit.message}”?`,
      answer: `commit ${commit.hash}`,
    });
    for (const file of commit.files) {
      const { text, header } = hunk(random, file, figures);
      lines.push(
        `diff --git a/${file.path} b/${file.path}`,
        `index ${hex(random, 7)}..${hex(random, 7)} 100644`,
        `--- a/${file.path}`,
        `+++ b/${file.path}`,
        ...text,
        "",
      );
      facts.push({
        question: `Which hunk of ${file.path} did the commit “${commit.message}” change?`,
        answer: header,
      });
    }
  }
  return { stdout: `${lines.join("\n")}\n`, exit: 0, facts };
}

/** `rg -n <symbol> src | head -n <limit>`: the lines of `files` that mention it, as `path:line:text`. */
export function ripgrep(files: readonly SourceFile[], symbol: string, limit: number): CommandOutput {
  const lines: string[] = [];
  for (const file of files) {
    file.lines.forEach((line, index) => {
      if (line.includes(symbol)) lines.push(`${file.path}:${index + 1}:${line}`);
    });
  }
  const shown = lines.slice(0, limit);
  const facts = shown.slice(0, 3).map((line) => ({
    question: `On which line does ${symbol} occur in ${line.split(":")[0]}?`,
    answer: line.split(":").slice(0, 2).join(":"),
  }));
  return { stdout: shown.length > 0 ? `${shown.join("\n")}\n` : "", exit: shown.length > 0 ? 0 : 1, facts };
}

/** `sed -n '<from>,<to>p' <path>`. */
export function sedRange(file: SourceFile, from: number, to: number): CommandOutput {
  const text = `${file.lines.slice(from - 1, to).join("\n")}\n`;
  return { stdout: text, exit: 0, facts: factsInLines(file, text) };
}

/** `cat <path>`: the whole file. */
export function catFile(file: SourceFile): CommandOutput {
  const text = `${file.lines.join("\n")}\n`;
  return { stdout: text, exit: 0, facts: factsInLines(file, text) };
}

/** `npx tsc --noEmit`: type errors at places no other output names, or nothing. */
export function typecheck(
  random: SeededRandom,
  figures: FigureRegistry,
  files: readonly SourceFile[],
  errors: number,
): CommandOutput {
  const facts: Fact[] = [];
  const lines: string[] = [];
  for (let index = 0; index < errors; index++) {
    const file = random.pick(files);
    const at = figures.claim((r) => `${file.path}(${r.integer(10, file.lines.length)},${r.integer(3, 60)})`);
    const [code, text] = random.pick([
      ["TS2345", "Argument of type 'number' is not assignable to parameter of type 'Cents'."],
      ["TS2322", "Type 'string | undefined' is not assignable to type 'string'."],
      [
        "TS2339",
        `Property '${random.pick(file.functions)}' does not exist on type 'typeof import("${file.path.replace(/\.ts$/, "")}")'.`,
      ],
      ["TS7006", "Parameter 'entry' implicitly has an 'any' type."],
    ] as const);
    lines.push(`${at}: error ${code}: ${text}`);
    facts.push({ question: `Where does tsc report error ${code}?`, answer: at });
  }
  if (errors > 0)
    lines.push(
      "",
      `Found ${errors} error${errors === 1 ? "" : "s"} in ${new Set(lines.map((line) => line.split("(")[0])).size - 1} files.`,
    );
  return { stdout: lines.length > 0 ? `${lines.join("\n")}\n` : "", exit: errors > 0 ? 2 : 0, facts };
}

/** `npm run lint`: the linter's stylish report, a block per file. */
export function lint(
  random: SeededRandom,
  figures: FigureRegistry,
  repository: Repository,
  files: readonly SourceFile[],
): CommandOutput {
  const facts: Fact[] = [];
  const lines = [`> ${repository.name}@4.12.0 lint`, "> eslint src test", ""];
  let problems = 0;
  for (const file of files) {
    lines.push(`${repository.root}/${file.path}`);
    for (let count = random.integer(1, 4); count > 0; count--) {
      const variable = figures.claim(
        (r) =>
          `${r.pick(["unused", "stale", "tmp", "prev", "legacy"])}${r.pick(["Total", "Window", "Entry", "Attempt", "Offset"])}${r.integer(2, 99)}`,
      );
      const rule = random.pick([
        "@typescript-eslint/no-unused-vars",
        "prefer-const",
        "no-console",
        "@typescript-eslint/no-explicit-any",
      ]);
      const message = `'${variable}' is ${random.pick(["assigned a value but never used", "never reassigned. Use 'const' instead", "defined but never used"])}`;
      lines.push(
        `  ${random.integer(1, file.lines.length)}:${random.integer(3, 40)}  warning  ${message}  ${rule}`,
      );
      facts.push({ question: `What does the linter report in ${file.path}?`, answer: message });
      problems++;
    }
    lines.push("");
  }
  lines.push(`✖ ${problems} problems (0 errors, ${problems} warnings)`, "");
  return { stdout: `${lines.join("\n")}\n`, exit: 0, facts };
}

/** `npx vitest run --coverage`: the v8 coverage table, a row per file. */
export function coverage(
  random: SeededRandom,
  figures: FigureRegistry,
  repository: Repository,
): CommandOutput {
  const facts: Fact[] = [];
  const lines = [
    ` % Coverage report from v8`,
    "-------------------------------|---------|----------|---------|---------|-------------------",
    "File                           | % Stmts | % Branch | % Funcs | % Lines | Uncovered Line #s ",
    "-------------------------------|---------|----------|---------|---------|-------------------",
  ];
  for (const file of repository.files) {
    const pct = () => (random.integer(5_000, 10_000) / 100).toFixed(2).padStart(7);
    const uncovered = figures.claim((r) => {
      const first = r.integer(10, file.lines.length);
      return `${first}-${first + r.integer(2, 30)},${r.integer(10, file.lines.length)}`;
    });
    lines.push(
      `  ${file.path.slice(4).padEnd(29)}| ${pct()} | ${pct()}  | ${pct()} | ${pct()} | ${uncovered}`,
    );
    facts.push({ question: `Which lines of ${file.path} are not covered?`, answer: uncovered });
  }
  lines.push("-------------------------------|---------|----------|---------|---------|-------------------");
  return { stdout: `${lines.join("\n")}\n`, exit: 0, facts: facts.filter((_, index) => index % 4 === 0) };
}

/** `npm run build`: the bundler's chunks with their sizes. */
export function build(random: SeededRandom, figures: FigureRegistry, repository: Repository): CommandOutput {
  const facts: Fact[] = [];
  const lines = [
    `> ${repository.name}@4.12.0 build`,
    "> tsdown",
    "",
    "ℹ tsdown v0.15.4 powered by rolldown",
    "ℹ entry: src/index.ts",
    "ℹ Build start",
  ];
  for (const file of repository.files) {
    for (const format of ["mjs", "cjs", "d.mts"]) {
      const chunk = figures.claim(
        (r) => `dist/${file.path.slice(4, -3).replace("/", "-")}-${hex(r, 8)}.${format}`,
      );
      const size = `${(random.integer(40, 4_000) / 100).toFixed(2)} kB`;
      lines.push(
        `ℹ ${chunk.padEnd(52)} ${size.padStart(9)} │ gzip: ${(random.integer(20, 1_500) / 100).toFixed(2)} kB`,
      );
      if (format === "mjs")
        facts.push({ question: `Which chunk did the build write for ${file.path}?`, answer: chunk });
    }
  }
  const took = figures.claim((r) => `Build complete in ${r.integer(400, 9_000)}ms`);
  lines.push(`✔ ${took}`);
  facts.push({ question: "How long did the build take?", answer: took });
  return { stdout: `${lines.join("\n")}\n`, exit: 0, facts: facts.filter((_, index) => index % 3 === 0) };
}

const PACKAGES = [
  "zod",
  "pino",
  "undici",
  "p-limit",
  "date-fns",
  "decimal.js",
  "vitest",
  "@vitest/coverage-v8",
  "typescript",
  "eslint",
  "tsdown",
  "rolldown",
  "esbuild",
  "chokidar",
  "picomatch",
  "semver",
  "yaml",
  "ms",
  "debug",
  "fast-glob",
];

/** `npm ls --all`: the dependency tree, versions unique to it. */
export function npmLs(
  random: SeededRandom,
  figures: FigureRegistry,
  repository: Repository,
  entries: number,
): CommandOutput {
  const facts: Fact[] = [];
  const lines = [`${repository.name}@4.12.0 ${repository.root}`];
  for (let index = 0; index < entries; index++) {
    const depth = index === 0 ? 0 : random.integer(0, 3);
    const name = `${random.pick(PACKAGES)}${random.chance(0.5) ? "" : `-${random.pick(["core", "utils", "types", "plugin", "shared"])}`}`;
    const version = figures.claim(
      (r) => `${name}@${r.integer(0, 12)}.${r.integer(0, 40)}.${r.integer(0, 30)}`,
    );
    lines.push(
      `${"│ ".repeat(depth)}${random.chance(0.8) ? "├─" : "└─"}${random.chance(0.3) ? "┬" : "─"} ${version}${random.chance(0.1) ? " deduped" : ""}`,
    );
    if (index % 20 === 0)
      facts.push({ question: `Which version of ${name} does npm ls show?`, answer: version });
  }
  return { stdout: `${lines.join("\n")}\n`, exit: 0, facts };
}

/** A job's log (`cat logs/<job>.log`): timestamped lines, a few of them mismatches with ids no other output has. */
export function jobLog(
  random: SeededRandom,
  figures: FigureRegistry,
  job: string,
  lines: number,
): CommandOutput {
  const facts: Fact[] = [];
  const out: string[] = [];
  for (let index = 0; index < lines; index++) {
    const stamp = `2025-03-01T02:${String(Math.floor(index / 60)).padStart(2, "0")}:${String(index % 60).padStart(2, "0")}.${String(random.integer(0, 999)).padStart(3, "0")}Z`;
    const id = figures.claim((r) => `${job.slice(0, 3)}_${hex(r, 10)}`);
    if (index % 37 === 5) {
      const expected = random.integer(1_000, 900_000);
      const line = `${stamp} WARN  ${job} mismatch id=${id} expected=${expected} actual=${expected - 1} delta=-1`;
      out.push(line);
      facts.push({
        question: `Which ${job} entry showed a mismatch at ${stamp}?`,
        answer: `mismatch id=${id} expected=${expected}`,
      });
    } else {
      out.push(
        `${stamp} INFO  ${job} processed id=${id} ${random.pick(["ok", "ok", "ok", "skipped (zero amount)", "retried once"])} in ${random.integer(1, 90)}ms`,
      );
    }
  }
  const summary = figures.claim(
    (r) =>
      `${job} finished: ${lines} processed, ${Math.ceil(lines / 37)} mismatches, exit ${r.integer(1, 3)}`,
  );
  out.push(`${"2025-03-01T03:00:00.000Z"} ERROR ${summary}`);
  facts.push({ question: `How did the ${job} run end?`, answer: summary });
  return { stdout: `${out.join("\n")}\n`, exit: 0, facts };
}
