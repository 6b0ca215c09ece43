import { ARG_PATTERN_LIMITS, type ArgPattern, compileArgPattern } from "./arg-pattern";
import { InvalidToolPolicyError } from "./errors";
import { describeValue, isRecord } from "./validate";

/** A pattern on one argument of a call: a result whose call's `arg` matches `pattern` stays raw. */
export interface ProtectedArgInput {
  /** The argument's name, e.g. `file_id` or `path`. */
  arg: string;
  /**
   * A regular expression source of the linear-time subset (see `compileArgPattern`: no
   * backreference or lookaround, at most 256 instructions), matched anywhere in the first
   * 4,096 chars of the argument's value (a string or a number), e.g. `^/pinned/`.
   */
  pattern: string;
  /** Only calls of these tools. @default every tool */
  tools?: string[];
}

/**
 * Which tools the cleaner may condense, as plain data (JSON), so a per-org row can hold it.
 * A result the rules protect is kept raw by the `policy-keep` keep-rule: neither digested,
 * nor stubbed, nor condensed by the history backstop.
 */
export interface ToolRulesInput {
  /** When set, only these tools' results may be condensed; every other tool's stay raw. */
  include?: string[];
  /** Tools whose results are not condensed. */
  exclude?: string[];
  /**
   * Tools whose output is never condensed: memory- or instruction-bearing tools. Kept like
   * `exclude`, and it wins over `include` (a tool in both stays raw).
   */
  neverCondense?: string[];
  /** Argument patterns that protect results, e.g. `{ arg: "path", pattern: "^/pinned/" }`. */
  protectedArgs?: ProtectedArgInput[];
}

/** One validated argument pattern. */
export interface ProtectedArg {
  readonly arg: string;
  /** Compiled to a linear-time matcher (never run by the backtracking `RegExp`). */
  readonly pattern: ArgPattern;
  /** The pattern as given (what the rules' data holds again). */
  readonly source: string;
  readonly tools: ReadonlySet<string> | undefined;
}

/** Validated tool rules. */
export interface ToolRules {
  readonly include: ReadonlySet<string> | undefined;
  readonly exclude: ReadonlySet<string>;
  readonly neverCondense: ReadonlySet<string>;
  readonly protectedArgs: readonly ProtectedArg[];
}

/** Rules that protect nothing. */
export const NO_TOOL_RULES: ToolRules = Object.freeze({
  include: undefined,
  exclude: new Set<string>(),
  neverCondense: new Set<string>(),
  protectedArgs: Object.freeze([]),
});

const FIELDS = new Set(["include", "exclude", "neverCondense", "protectedArgs"]);
const ARG_FIELDS = new Set(["arg", "pattern", "tools"]);

function fail(field: string, problem: string, cause?: unknown): never {
  throw new InvalidToolPolicyError(`${field} ${problem}`, { field, cause });
}

function toolNames(value: unknown, field: string): Set<string> {
  if (!Array.isArray(value)) fail(field, `must be an array of tool names, got ${describeValue(value)}`);
  value.forEach((name, index) => {
    if (typeof name !== "string" || name === "")
      fail(`${field}[${index}]`, `must be a non-empty tool name, got ${describeValue(name)}`);
  });
  return new Set(value as string[]);
}

function unknownKey(value: Record<string, unknown>, known: Set<string>, at: string): void {
  const extra = Object.keys(value).find((key) => !known.has(key));
  if (extra !== undefined)
    fail(`${at}.${extra}`, `is not a known field (expected one of ${[...known].join(", ")})`);
}

function protectedArg(value: unknown, at: string): ProtectedArg {
  if (!isRecord(value)) fail(at, `must be an object { arg, pattern, tools? }, got ${describeValue(value)}`);
  unknownKey(value, ARG_FIELDS, at);
  if (typeof value.arg !== "string" || value.arg === "")
    fail(`${at}.arg`, `must be a non-empty argument name, got ${describeValue(value.arg)}`);
  if (typeof value.pattern !== "string" || value.pattern === "")
    fail(
      `${at}.pattern`,
      `must be a non-empty regular expression source, got ${describeValue(value.pattern)}`,
    );
  const pattern = compileArgPattern(value.pattern);
  if ("problem" in pattern) fail(`${at}.pattern`, pattern.problem);
  return Object.freeze({
    arg: value.arg,
    pattern,
    source: value.pattern,
    tools: value.tools === undefined ? undefined : toolNames(value.tools, `${at}.tools`),
  });
}

/**
 * Validates tool rules given as data; `at` prefixes the field an error names.
 * @throws {InvalidToolPolicyError} naming the one bad field, e.g. `rules.protectedArgs[1].pattern`.
 */
export function validateToolRules(input: unknown, at = "rules"): ToolRules {
  if (input === undefined) return NO_TOOL_RULES;
  if (!isRecord(input)) fail(at, `must be an object, got ${describeValue(input)}`);
  unknownKey(input, FIELDS, at);
  const list = (field: string) =>
    input[field] === undefined ? new Set<string>() : toolNames(input[field], `${at}.${field}`);
  const include = input.include === undefined ? undefined : toolNames(input.include, `${at}.include`);
  const exclude = list("exclude");
  const neverCondense = list("neverCondense");
  const patterns = input.protectedArgs;
  if (patterns !== undefined && !Array.isArray(patterns))
    fail(
      `${at}.protectedArgs`,
      `must be an array of { arg, pattern, tools? }, got ${describeValue(patterns)}`,
    );
  const protectedArgs = ((patterns ?? []) as unknown[]).map((entry, index) =>
    protectedArg(entry, `${at}.protectedArgs[${index}]`),
  );
  const size = protectedArgs.reduce((sum, { pattern }) => sum + pattern.programSize, 0);
  if (size > ARG_PATTERN_LIMITS.rulesProgramSize)
    fail(
      `${at}.protectedArgs`,
      `compile to ${size} instructions together, over the ${ARG_PATTERN_LIMITS.rulesProgramSize} one rule set's patterns may take`,
    );
  return Object.freeze({ include, exclude, neverCondense, protectedArgs: Object.freeze(protectedArgs) });
}

/**
 * `base` with `extra` layered over it, where each layer only adds protection: the include
 * lists intersect, the exclude and never-condense lists and the argument patterns add up.
 */
export function mergeToolRules(base: ToolRules, extra: ToolRules): ToolRules {
  if (extra === NO_TOOL_RULES) return base;
  if (base === NO_TOOL_RULES) return extra;
  const include =
    base.include && extra.include
      ? new Set([...base.include].filter((name) => (extra.include as ReadonlySet<string>).has(name)))
      : (base.include ?? extra.include);
  return Object.freeze({
    include,
    exclude: new Set([...base.exclude, ...extra.exclude]),
    neverCondense: new Set([...base.neverCondense, ...extra.neverCondense]),
    protectedArgs: Object.freeze([...base.protectedArgs, ...extra.protectedArgs]),
  });
}

/**
 * Whether the rules keep a result of `toolName`, answering a call with `args`, raw. Each
 * argument pattern reads at most the first 4,096 chars of its argument, in linear time.
 */
export function rulesProtect(
  rules: ToolRules,
  toolName: string,
  args: Readonly<Record<string, unknown>> | undefined,
): boolean {
  if (rules.neverCondense.has(toolName) || rules.exclude.has(toolName)) return true;
  if (rules.include && !rules.include.has(toolName)) return true;
  if (!args) return false;
  for (const { arg, pattern, tools } of rules.protectedArgs) {
    if (tools && !tools.has(toolName)) continue;
    const value = args[arg];
    if ((typeof value === "string" || typeof value === "number") && pattern.test(String(value))) return true;
  }
  return false;
}

/** The rules as data again (for storage and display): what {@link validateToolRules} takes. */
export function toolRulesData(rules: ToolRules): ToolRulesInput {
  return {
    ...(rules.include ? { include: [...rules.include] } : {}),
    ...(rules.exclude.size > 0 ? { exclude: [...rules.exclude] } : {}),
    ...(rules.neverCondense.size > 0 ? { neverCondense: [...rules.neverCondense] } : {}),
    ...(rules.protectedArgs.length > 0
      ? {
          protectedArgs: rules.protectedArgs.map(({ arg, source, tools }) => ({
            arg,
            pattern: source,
            ...(tools ? { tools: [...tools] } : {}),
          })),
        }
      : {}),
  };
}
