import { InvalidToolPolicyError } from "./errors";
import {
  mergeToolRules,
  rulesProtect,
  type ToolRules,
  type ToolRulesInput,
  validateToolRules,
} from "./tool-rules";

/** What a tool is, for cleaning purposes (docs/architecture.md#junk-categories). */
export const TOOL_KINDS = ["document-read", "search", "interrupt", "keep", "other"] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];

/** One tool's rule as a user writes it. */
export interface ToolRuleInput {
  kind: ToolKind;
  /**
   * The args that identify what the call read, in re-read order, e.g. `["file_id", "offset"]`.
   * Required for `document-read`: the first names the document, the others its position.
   */
  provenanceArgs?: string[];
  /** The arg holding the read's offset (page start); pages at offset 0 or absent are first pages. */
  offsetArg?: string;
  /** Whether re-running the call returns the same bytes. @default true for document-read, false otherwise */
  idempotent?: boolean;
  /** Marks a tracked-change or comment ledger in a first page (regex source or RegExp, case-insensitive). */
  ledgerMarker?: string | RegExp;
  /** Finds hit ids in a search result: a regex whose first capture group is the id. */
  hitIdPattern?: string | RegExp;
}

/** A validated tool rule. */
export interface ToolRule {
  readonly name: string;
  readonly kind: ToolKind;
  readonly provenanceArgs: readonly string[];
  readonly offsetArg: string | undefined;
  readonly idempotent: boolean;
  readonly ledgerMarker: RegExp | undefined;
  readonly hitIdPattern: RegExp | undefined;
}

/** Tool policy options as a user writes them. */
export interface ToolPolicyInput {
  /** Per tool name; merged over the defaults (a tool named here replaces its default rule). */
  tools?: Record<string, ToolRuleInput>;
  /** Drop the default tool rules entirely. @default false */
  replaceDefaults?: boolean;
  /** Threshold of the "bulky-output" category (idempotent tools only). @default 8000 */
  bulkMinChars?: number;
  /**
   * Which tools the cleaner may condense: include, exclude and never-condense lists and
   * argument patterns that protect results (pure data). A result they protect is kept raw
   * (the `policy-keep` keep-rule). @default no rule: every tool may be condensed
   */
  rules?: ToolRulesInput;
}

/** A validated tool policy. */
export interface ToolPolicy {
  readonly tools: ReadonlyMap<string, ToolRule>;
  readonly bulkMinChars: number;
  /** The include / exclude / never-condense lists and protected argument patterns. */
  readonly rules: ToolRules;
  /** The rule for a tool name; unknown tools get an `other`, non-idempotent rule. */
  ruleFor(toolName: string): ToolRule;
  /** Whether {@link rules} keep a result of `toolName`, answering a call with `args`, raw. */
  protects(toolName: string, args: Readonly<Record<string, unknown>> | undefined): boolean;
}

/** The default ledger marker: tracked changes, redlines, comment ledgers. */
export const DEFAULT_LEDGER_MARKER =
  /\b(?:tracked[ -]changes?|redline[sd]?|comments? ledger|revision marks?)\b|\[comments?\]/i;

/** The default hit-id pattern: `"id": "x"`, `id: x`, `file_id=x`, `document_id: x`, … */
export const DEFAULT_HIT_ID_PATTERN =
  /(?:^|[\s,{"'[(])(?:id|file_id|document_id|doc_id|result_id|url)["']?\s*[:=]\s*["']?([A-Za-z0-9][A-Za-z0-9_\-.:/#?=&%]*)/gim;

const DEFAULT_TOOLS: Record<string, ToolRuleInput> = {
  read_document: { kind: "document-read", provenanceArgs: ["file_id", "offset"], offsetArg: "offset" },
  get_document_text: {
    kind: "document-read",
    provenanceArgs: ["document_id", "text_offset"],
    offsetArg: "text_offset",
  },
  read_file: { kind: "document-read", provenanceArgs: ["path", "offset"], offsetArg: "offset" },
  search: { kind: "search" },
  search_documents: { kind: "search" },
  web_search: { kind: "search" },
  ask_user: { kind: "interrupt" },
  save_memory: { kind: "keep" },
  load_skill: { kind: "keep" },
  load_context: { kind: "keep" },
};

/** Defaults of the tool policy. */
export const POLICY_DEFAULTS = {
  bulkMinChars: 8_000,
  tools: DEFAULT_TOOLS,
} as const;

function toRegExp(value: string | RegExp, tool: string, field: string, flags: string): RegExp {
  if (value instanceof RegExp) {
    const merged = new Set([...value.flags, ...flags]);
    return new RegExp(value.source, [...merged].join(""));
  }
  if (typeof value !== "string" || value.length === 0) {
    throw new InvalidToolPolicyError(`tool "${tool}": ${field} must be a non-empty string or RegExp`, {
      tool,
      field,
    });
  }
  try {
    return new RegExp(value, flags);
  } catch (cause) {
    throw new InvalidToolPolicyError(`tool "${tool}": ${field} is not a valid regular expression: ${value}`, {
      tool,
      field,
      cause,
    });
  }
}

function validateRule(name: string, input: ToolRuleInput): ToolRule {
  if (input === null || typeof input !== "object") {
    throw new InvalidToolPolicyError(`tool "${name}": rule must be an object`, { tool: name });
  }
  if (!TOOL_KINDS.includes(input.kind)) {
    throw new InvalidToolPolicyError(
      `tool "${name}": unknown kind ${JSON.stringify(input.kind)} (expected one of ${TOOL_KINDS.join(", ")})`,
      { tool: name, field: "kind" },
    );
  }
  const provenanceArgs = input.provenanceArgs ?? [];
  if (!Array.isArray(provenanceArgs) || provenanceArgs.some((arg) => typeof arg !== "string" || arg === "")) {
    throw new InvalidToolPolicyError(`tool "${name}": provenanceArgs must be an array of non-empty strings`, {
      tool: name,
      field: "provenanceArgs",
    });
  }
  if (input.kind === "document-read" && provenanceArgs.length === 0) {
    throw new InvalidToolPolicyError(
      `tool "${name}": a document-read tool needs provenanceArgs naming its document id arg (e.g. ["file_id", "offset"])`,
      { tool: name, field: "provenanceArgs" },
    );
  }
  if (input.offsetArg !== undefined && (typeof input.offsetArg !== "string" || input.offsetArg === "")) {
    throw new InvalidToolPolicyError(`tool "${name}": offsetArg must be a non-empty string`, {
      tool: name,
      field: "offsetArg",
    });
  }
  if (input.idempotent !== undefined && typeof input.idempotent !== "boolean") {
    throw new InvalidToolPolicyError(`tool "${name}": idempotent must be a boolean`, {
      tool: name,
      field: "idempotent",
    });
  }
  const ledgerMarker =
    input.ledgerMarker !== undefined
      ? toRegExp(input.ledgerMarker, name, "ledgerMarker", "i")
      : input.kind === "document-read"
        ? DEFAULT_LEDGER_MARKER
        : undefined;
  const hitIdPattern =
    input.hitIdPattern !== undefined
      ? toRegExp(input.hitIdPattern, name, "hitIdPattern", "gim")
      : input.kind === "search"
        ? DEFAULT_HIT_ID_PATTERN
        : undefined;
  return Object.freeze({
    name,
    kind: input.kind,
    provenanceArgs: Object.freeze([...provenanceArgs]),
    offsetArg: input.offsetArg ?? (input.kind === "document-read" ? provenanceArgs[1] : undefined),
    idempotent: input.idempotent ?? input.kind === "document-read",
    ledgerMarker,
    hitIdPattern,
  });
}

/**
 * Builds a validated tool policy from user configuration merged over the defaults.
 *
 * @throws {InvalidToolPolicyError} on an unknown kind, a document-read tool without
 * provenance args, a bad regex or a bad threshold.
 * @example
 * const policy = createToolPolicy({
 *   tools: { fetch_contract: { kind: "document-read", provenanceArgs: ["contract_id", "page"] } },
 * });
 */
export function createToolPolicy(input: ToolPolicyInput = {}): ToolPolicy {
  if (input === null || typeof input !== "object") {
    throw new InvalidToolPolicyError("tool policy must be an object");
  }
  const bulkMinChars = input.bulkMinChars ?? POLICY_DEFAULTS.bulkMinChars;
  if (!Number.isInteger(bulkMinChars) || bulkMinChars < 1) {
    throw new InvalidToolPolicyError(`bulkMinChars must be a positive integer, got ${String(bulkMinChars)}`, {
      field: "bulkMinChars",
    });
  }
  const merged: Record<string, ToolRuleInput> = {
    ...(input.replaceDefaults ? {} : DEFAULT_TOOLS),
    ...(input.tools ?? {}),
  };
  const tools = new Map<string, ToolRule>();
  for (const [name, rule] of Object.entries(merged)) {
    tools.set(name, validateRule(name, rule));
  }
  return buildPolicy(tools, bulkMinChars, validateToolRules(input.rules));
}

function buildPolicy(
  tools: ReadonlyMap<string, ToolRule>,
  bulkMinChars: number,
  rules: ToolRules,
): ToolPolicy {
  const otherRules = new Map<string, ToolRule>();
  return Object.freeze({
    tools,
    bulkMinChars,
    rules,
    protects: (toolName: string, args: Readonly<Record<string, unknown>> | undefined) =>
      rulesProtect(rules, toolName, args),
    ruleFor(toolName: string): ToolRule {
      const known = tools.get(toolName);
      if (known) return known;
      let other = otherRules.get(toolName);
      if (!other) {
        other = validateRule(toolName, { kind: "other" });
        otherRules.set(toolName, other);
      }
      return other;
    },
  });
}

let defaultPolicy: ToolPolicy | undefined;
const policyByInput = new WeakMap<ToolPolicyInput, ToolPolicy>();

/**
 * Accepts a built policy or its input; builds the input once per input object (and the
 * default once per process), so per-message caches keyed by policy stay warm across calls.
 */
export function resolveToolPolicy(policy: ToolPolicy | ToolPolicyInput | undefined): ToolPolicy {
  if (policy && typeof (policy as ToolPolicy).ruleFor === "function") return policy as ToolPolicy;
  if (policy === undefined) {
    defaultPolicy ??= createToolPolicy();
    return defaultPolicy;
  }
  const input = policy as ToolPolicyInput;
  let built = policyByInput.get(input);
  if (!built) {
    built = createToolPolicy(input);
    policyByInput.set(input, built);
  }
  return built;
}

const layered = new WeakMap<ToolPolicy, Map<string, ToolPolicy>>();

/**
 * `policy` with further tool rules (an org's) layered over its own: they only add
 * protection (see {@link mergeToolRules}). The same policy and rules give back the same
 * object, so the per-message caches keyed by policy stay warm from one turn to the next.
 * @throws {InvalidToolPolicyError} naming the bad field of `rules`.
 */
export function withToolRules(policy: ToolPolicy, rules: ToolRulesInput | ToolRules | undefined): ToolPolicy {
  if (rules === undefined) return policy;
  const validated = isValidatedRules(rules) ? rules : validateToolRules(rules);
  const key = JSON.stringify(rulesKey(validated));
  let byKey = layered.get(policy);
  if (!byKey) {
    byKey = new Map();
    layered.set(policy, byKey);
  }
  let built = byKey.get(key);
  if (!built) {
    built = buildPolicy(policy.tools, policy.bulkMinChars, mergeToolRules(policy.rules, validated));
    byKey.set(key, built);
  }
  return built;
}

function isValidatedRules(rules: ToolRulesInput | ToolRules): rules is ToolRules {
  return rules.exclude instanceof Set;
}

function rulesKey(rules: ToolRules): unknown {
  return [
    rules.include ? [...rules.include] : null,
    [...rules.exclude],
    [...rules.neverCondense],
    rules.protectedArgs.map(({ arg, source, tools }) => [arg, source, tools ? [...tools] : null]),
  ];
}
