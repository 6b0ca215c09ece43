import { parseArgs } from "node:util";
import type { OrgPolicy } from "@context-cleaner/assembler";
import { type OrgPolicyInput, orgPolicyData, validateOrgPolicy } from "@context-cleaner/assembler/internal";
import { createDigestRepository } from "@context-cleaner/db";
import { UsageError } from "../../errors";
import { databaseUrlOf, type OpsContext, required, withDatabase } from "./ops-context";

/** The `policy set` flags of the overrides, and the policy field each sets. */
const OVERRIDE_FLAGS = {
  "trigger-chars": "triggerChars",
  "recency-exchanges": "recencyKeepExchanges",
  "digest-cap": "digestCharCap",
  "max-calls": "maxCallsPerJob",
  "daily-budget-usd": "dailyBudgetUsd",
} as const;

/**
 * `context-cleaner policy get --org O [--json]`: the org's policy, or the deployment's
 * defaults when it has none.
 * `context-cleaner policy set --org O --by WHO [--at ISO] [--mode M] [--max-calls N] …
 *  [--tool-rules JSON] [--policy JSON]`: validates and stores the org's policy with who set
 * it and when (`--at`, default now). The flags change those fields of the current policy;
 * `--policy` gives the whole policy instead. A `protectedArgs` pattern of the tool rules
 * must be of the assembler's linear-time subset (no backreference or lookaround): any
 * other is refused with the field it is in, before the database is opened.
 * `context-cleaner policy reset --org O`: deletes the org's policy (back to the defaults).
 */
export async function policyCommand(args: string[], context: OpsContext): Promise<void> {
  const [action, ...rest] = args;
  if (action === "get") return getPolicy(rest, context);
  if (action === "set") return setPolicy(rest, context);
  if (action === "reset") return resetPolicy(rest, context);
  throw new UsageError(`policy needs get, set or reset, got ${JSON.stringify(action ?? "")}`);
}

async function getPolicy(args: string[], context: OpsContext): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { org: { type: "string" }, database: { type: "string" }, json: { type: "boolean" } },
  });
  const orgId = required(values.org, "org", "policy get");
  const policy = await withDatabase(context, databaseUrlOf(values.database, context.io), (database) =>
    createDigestRepository(database).getOrgPolicy(orgId),
  );
  if (values.json) {
    context.io.stdout(`${JSON.stringify({ orgId, policy }, null, 2)}\n`);
    return;
  }
  context.io.stdout(`${describePolicy(orgId, policy).join("\n")}\n`);
}

async function setPolicy(args: string[], context: OpsContext): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      org: { type: "string" },
      by: { type: "string" },
      at: { type: "string" },
      mode: { type: "string" },
      "tool-rules": { type: "string" },
      policy: { type: "string" },
      database: { type: "string" },
      json: { type: "boolean" },
      ...Object.fromEntries(Object.keys(OVERRIDE_FLAGS).map((flag) => [flag, { type: "string" as const }])),
    },
  });
  const orgId = required(values.org, "org", "policy set");
  const updatedBy = required(values.by, "by", "policy set");
  const updatedAt = values.at === undefined ? context.clock.now() : new Date(values.at);
  if (Number.isNaN(updatedAt.getTime()))
    throw new UsageError(`--at must be an ISO 8601 time, got ${JSON.stringify(values.at)}`);
  const changes = policyChanges(values as Record<string, string | boolean | undefined>);
  const given =
    values.policy === undefined
      ? undefined
      : { ...(parseJson(values.policy, "policy") as OrgPolicyInput), ...changes };
  // Every field is checked before the database is asked for: the flags' fields alone
  // (each stands as a policy), or the whole policy `--policy` gives.
  validateOrgPolicy(given ?? changes);
  const stored = await withDatabase(context, databaseUrlOf(values.database, context.io), async (database) => {
    const repository = createDigestRepository(database);
    const base = given === undefined ? await repository.getOrgPolicy(orgId) : null;
    const whole = given ?? { ...(base ? orgPolicyData(base) : {}), ...changes };
    return repository.setOrgPolicy(orgId, whole, { updatedBy, updatedAt });
  });
  if (values.json) {
    context.io.stdout(`${JSON.stringify({ orgId, policy: stored }, null, 2)}\n`);
    return;
  }
  context.io.stdout(`${describePolicy(orgId, stored).join("\n")}\n`);
}

async function resetPolicy(args: string[], context: OpsContext): Promise<void> {
  const { values } = parseArgs({ args, options: { org: { type: "string" }, database: { type: "string" } } });
  const orgId = required(values.org, "org", "policy reset");
  const deleted = await withDatabase(context, databaseUrlOf(values.database, context.io), (database) =>
    createDigestRepository(database).deleteOrgPolicy(orgId),
  );
  context.io.stdout(
    deleted
      ? `org ${orgId}: policy deleted; the deployment's defaults apply (mode on)\n`
      : `org ${orgId}: had no policy; the deployment's defaults apply (mode on)\n`,
  );
}

/** The fields the flags set; numbers are parsed here and checked by the policy's validation. */
function policyChanges(values: Record<string, string | boolean | undefined>): OrgPolicyInput {
  const changes: Record<string, unknown> = {};
  if (values.mode !== undefined) changes.mode = values.mode;
  for (const [flag, field] of Object.entries(OVERRIDE_FLAGS)) {
    const value = values[flag];
    if (typeof value !== "string") continue;
    const number = Number(value);
    if (value.trim() === "" || Number.isNaN(number))
      throw new UsageError(`--${flag} must be a number, got ${JSON.stringify(value)}`);
    changes[field] = number;
  }
  if (typeof values["tool-rules"] === "string")
    changes.toolRules = parseJson(values["tool-rules"], "tool-rules");
  return changes as OrgPolicyInput;
}

function parseJson(text: string, flag: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new UsageError(`--${flag} must be JSON: ${(cause as Error).message}`);
  }
}

/** The lines that show an org's policy (or that it has none), shared with `status --org`. */
export function describePolicy(orgId: string, policy: OrgPolicy | null): string[] {
  if (policy === null)
    return [`org ${orgId}`, "  mode:         on (no policy row: the deployment's defaults)"];
  const lines = [
    `org ${orgId}`,
    `  mode:         ${policy.mode}`,
    `  set by:       ${policy.updatedBy ?? "—"} at ${policy.updatedAt ?? "—"}`,
  ];
  const overrides = Object.entries(policy.overrides);
  lines.push(
    `  overrides:    ${overrides.length === 0 ? "none (the deployment's defaults)" : overrides.map(([field, value]) => `${field}=${value}`).join(", ")}`,
  );
  lines.push(`  tool rules:   ${policy.toolRules ? JSON.stringify(policy.toolRules) : "none"}`);
  return lines;
}
