import { InvalidOptionError } from "./errors";
import { type ToolRulesInput, toolRulesData, validateToolRules } from "./tool-rules";
import type { DigestMap } from "./types";
import { describeValue, isRecord } from "./validate";

/**
 * How the cleaner treats one org (docs/architecture.md#rollout-controls): `on` cleans,
 * `shadow` computes and reports the cleaned view but sends what `off` sends, `off` is the
 * kill switch for that org alone.
 */
export const POLICY_MODES = ["on", "shadow", "off"] as const;
export type PolicyMode = (typeof POLICY_MODES)[number];

/** The documented defaults an org's policy may override (each absent one keeps the deployment's). */
export interface PolicyOverrides {
  /**
   * The worker's trigger: raw tool chars below which a thread gets no pass. An org can only
   * raise the deployment's (below it, a job does no I/O, so it never reads the policy).
   */
  triggerChars?: number;
  /** Assistant/tool exchanges kept raw before the latest user message (assembly and worker). */
  recencyKeepExchanges?: number;
  /** Upper bound of one digest, in chars. */
  digestCharCap?: number;
  /** Digest calls per job. */
  maxCallsPerJob?: number;
  /** The org's daily digest budget in USD. */
  dailyBudgetUsd?: number;
}

/** One org's policy as an operator writes it (JSON data). */
export interface OrgPolicyInput extends PolicyOverrides {
  /** @default "on" */
  mode?: PolicyMode;
  /** Tool rules layered over the deployment's: they only add protection. */
  toolRules?: ToolRulesInput;
}

/** A validated org policy; `updatedBy` and `updatedAt` are the audit fields of its stored row. */
export interface OrgPolicy {
  readonly mode: PolicyMode;
  readonly overrides: Readonly<PolicyOverrides>;
  /** Validated, as data (what the row stores). */
  readonly toolRules: ToolRulesInput | undefined;
  /** Who last set it, as the operator gave it. */
  readonly updatedBy?: string;
  /** When it was last set (ISO 8601). */
  readonly updatedAt?: string;
}

const OVERRIDE_MINIMUMS: Readonly<Record<keyof PolicyOverrides, number>> = {
  triggerChars: 0,
  recencyKeepExchanges: 0,
  digestCharCap: 200,
  maxCallsPerJob: 0,
  dailyBudgetUsd: 0,
};

const FIELDS = new Set(["mode", "toolRules", ...Object.keys(OVERRIDE_MINIMUMS)]);

function fail(field: string, problem: string): never {
  throw new InvalidOptionError(`${field} ${problem}`, field);
}

/**
 * Validates an org policy given as data (a stored row, an operator's JSON).
 * @throws {InvalidOptionError} naming the one bad field (`mode`, `maxCallsPerJob`, …), or
 *   {@link InvalidToolPolicyError} naming it within `toolRules` (e.g. `toolRules.exclude[0]`).
 * @example
 * validateOrgPolicy({ mode: "shadow", maxCallsPerJob: 4, toolRules: { exclude: ["run_sql"] } });
 */
export function validateOrgPolicy(input: unknown): OrgPolicy {
  if (!isRecord(input)) fail("policy", `must be an object, got ${describeValue(input)}`);
  const extra = Object.keys(input).find((key) => !FIELDS.has(key));
  if (extra !== undefined) fail(extra, `is not a policy field (expected one of ${[...FIELDS].join(", ")})`);
  const mode = input.mode ?? "on";
  if (!POLICY_MODES.includes(mode as PolicyMode))
    fail("mode", `must be one of ${POLICY_MODES.join(", ")}, got ${describeValue(mode)}`);
  const overrides: PolicyOverrides = {};
  for (const [field, minimum] of Object.entries(OVERRIDE_MINIMUMS) as [keyof PolicyOverrides, number][]) {
    const value = input[field];
    if (value === undefined) continue;
    const integer = field !== "dailyBudgetUsd";
    const ok =
      typeof value === "number" &&
      Number.isFinite(value) &&
      value >= minimum &&
      (!integer || Number.isSafeInteger(value));
    if (!ok) {
      const got = typeof value === "number" ? String(value) : describeValue(value);
      fail(field, `must be ${integer ? "an integer" : "a number"} ≥ ${minimum}, got ${got}`);
    }
    overrides[field] = value as number;
  }
  const toolRules =
    input.toolRules === undefined
      ? undefined
      : toolRulesData(validateToolRules(input.toolRules, "toolRules"));
  return Object.freeze({ mode: mode as PolicyMode, overrides: Object.freeze(overrides), toolRules });
}

/** The policy as data again, without its audit fields: what {@link validateOrgPolicy} takes. */
export function orgPolicyData(policy: OrgPolicy): OrgPolicyInput {
  return {
    mode: policy.mode,
    ...policy.overrides,
    ...(policy.toolRules ? { toolRules: policy.toolRules } : {}),
  };
}

/**
 * What a runtime's per-turn load returns when it reads the org's policy with the digests
 * (the storage package's `loadTurnState`, one query): `policy` is null when the org has no
 * row, which means the deployment's defaults.
 */
export interface TurnState {
  readonly digests: DigestMap;
  readonly policy: OrgPolicy | null;
}

/**
 * What an assembly takes as the thread's digests: the rows alone (`loadThreadDigests`), or
 * the turn state that carries the org's policy with them (`loadTurnState`).
 */
export type DigestsOrTurnState = DigestMap | TurnState;

/**
 * The digests and the org's policy of an assembly's digests argument: a turn state gives
 * both (its `policy` null when the org has none); a digest Map (or nothing) gives no policy
 * (undefined). Anything else is passed on as digests, for the assembly to refuse.
 */
export function turnInputOf(input: DigestsOrTurnState | null | undefined): {
  digests: DigestMap | null | undefined;
  policy: OrgPolicy | null | undefined;
} {
  if (input !== null && typeof input === "object" && !(input instanceof Map) && "digests" in input) {
    const state = input as TurnState;
    return { digests: state.digests, policy: state.policy ?? null };
  }
  return { digests: input as DigestMap | null | undefined, policy: undefined };
}
