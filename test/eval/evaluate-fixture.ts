/**
 * The eval battery over one fixture thread: a full clean (digest passes with the
 * extractive digester over an in-memory checkpoint reader and the embedded PGlite
 * repository, then assembly with the loaded digests), measured against the fixture's
 * probes, its artifact calls and its pending interrupt.
 */
import {
  type AssembledView,
  assembleModelView,
  type DigestMap,
  type Message,
  type ToolCall,
} from "@context-cleaner/assembler";
import { checkFigureProvenance } from "@context-cleaner/assembler/figures";
import {
  contentText,
  DIGEST_HEADER,
  indexThread,
  normalizeWhitespace,
  renderToolCall,
  resolveToolPolicy,
} from "@context-cleaner/assembler/internal";
import {
  createExtractiveDigester,
  createInMemoryCheckpointReader,
  type DigestJobOutcome,
  fixedClock,
  runDigestJob,
} from "@context-cleaner/core";
import type { DigestRepository } from "@context-cleaner/db";
import type { Probe, ThreadFixture } from "@context-cleaner/demo/generator";
import { carriesFurniture, digestBullets, endsMidSentence } from "./digest-quality";
import { integrations, type RecallCount, recallThroughHandles } from "./read-original-recall";

const ARTIFACT_TOOLS = new Set(["update_spreadsheet", "update_tracker"]);
/** Passes run until nothing is deferred, at most this many. */
const MAX_PASSES = 20;
/**
 * The tight scenario's history budget, as a share of the default view's chars: the
 * backstop cuts digests to their figures and drops exchanges, so probes leave the view and
 * only their handles stay.
 */
export const TIGHT_BUDGET_SHARE = 0.1;

/** Per integration, what the scripted agent recovered by following the view's handles. */
export type RecallByIntegration = Record<string, RecallCount>;

export interface RetentionCount {
  total: number;
  /** Verbatim (whitespace-normalised) in the assembled view. */
  inView: number;
  /** Not in the view, but the view holds the one call that re-reads the page holding it. */
  oneReReadAway: number;
  lost: string[];
}

export interface FixtureEvaluation {
  name: string;
  rawChars: number;
  viewChars: number;
  passes: DigestJobOutcome[];
  digests: DigestMap;
  view: AssembledView;
  probes: RetentionCount;
  /** Probes whose page the view shows condensed (a digest row replaced it). */
  probesOnCondensedPages: number;
  artifactFigures: RetentionCount;
  interrupt: {
    /** The pending ask_user call is the view's last message, with the same id, name and args. */
    pendingKept: boolean;
    /** Every answered ask_user result in the view pairs with its call. */
    answeredPaired: boolean;
    /** A resume result appended to the thread pairs with the pending call in the new view. */
    resumePairs: boolean;
  };
  bullets: { total: number; midSentence: string[]; furniture: string[] };
  /** With read_original enabled: the default view, and a view under a tight history budget. */
  recall: { default: RecallByIntegration; tight: RecallByIntegration; tightBudgetChars: number };
}

function viewText(messages: readonly Message[]): string {
  return normalizeWhitespace(messages.map((message) => contentText(message.content)).join("\n"));
}

/** The call that re-reads the result of `toolCallId`, rendered as digests and stubs name it. */
function rereadOf(callsById: ReadonlyMap<string, ToolCall>, toolCallId: string): string | undefined {
  const call = callsById.get(toolCallId);
  if (!call) return undefined;
  return renderToolCall(call, resolveToolPolicy(undefined).ruleFor(call.name).provenanceArgs);
}

function retention(
  items: readonly { answer: string; source: string | undefined }[],
  text: string,
  callsById: ReadonlyMap<string, ToolCall>,
): RetentionCount {
  const count: RetentionCount = { total: items.length, inView: 0, oneReReadAway: 0, lost: [] };
  for (const item of items) {
    const reread = item.source === undefined ? undefined : rereadOf(callsById, item.source);
    if (text.includes(normalizeWhitespace(item.answer))) count.inView++;
    else if (reread !== undefined && text.includes(reread)) count.oneReReadAway++;
    else count.lost.push(item.answer);
  }
  return count;
}

/** Cleans one fixture thread end to end and measures what its view keeps. */
export async function evaluateFixture(
  fixture: ThreadFixture,
  repository: DigestRepository,
  orgId: string,
): Promise<FixtureEvaluation> {
  const { messages } = fixture;
  const threadId = fixture.name;
  const rawToolChars = messages.reduce(
    (sum, message) => sum + (message.role === "tool" ? contentText(message.content).length : 0),
    0,
  );
  const ports = {
    checkpoints: createInMemoryCheckpointReader(new Map([[threadId, messages]])),
    store: repository,
    digester: createExtractiveDigester(),
    clock: fixedClock(new Date("2026-11-30T10:00:00.000Z")),
  };
  const passes: DigestJobOutcome[] = [];
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    // Each pass stands for a later turn end, so coalescing lets it run.
    const turnEndedAt = new Date(Date.UTC(2026, 10, 30, 10) + pass * 1000).toISOString();
    const outcome = await runDigestJob({ orgId, threadId, rawToolChars, turnEndedAt }, ports, {
      maxCallsPerJob: 100,
    });
    passes.push(outcome);
    if (outcome.status !== "partial" || outcome.reason !== "call_cap") break;
  }
  const digests = await repository.loadThreadDigests(orgId, threadId);
  const view = assembleModelView(messages, digests, { disabled: false });
  const text = viewText(view.messages);

  const callsById = new Map<string, ToolCall>();
  for (const message of messages) {
    if (message.role === "assistant")
      for (const call of message.toolCalls ?? []) callsById.set(call.id, call);
  }

  const probes = retention(
    fixture.probes.map((probe: Probe) => ({ answer: probe.answer, source: probe.toolCallId })),
    text,
    callsById,
  );

  // Artifact figures are checked against the view without the artifact calls' own args.
  const withoutArtifactArgs = view.messages.map(
    (message): Message =>
      message.role === "assistant" && message.toolCalls?.some((call) => ARTIFACT_TOOLS.has(call.name))
        ? { ...message, toolCalls: message.toolCalls.map((call) => ({ ...call, args: {} })) }
        : message,
  );
  const artifactItems: { answer: string; source: string | undefined }[] = [];
  messages.forEach((message, index) => {
    if (message.role !== "assistant") return;
    for (const call of message.toolCalls ?? []) {
      if (!ARTIFACT_TOOLS.has(call.name)) continue;
      const rows = (call.args.rows ?? call.args.entries ?? []) as { value: string }[];
      for (const { value } of rows) {
        const source = messages
          .slice(0, index)
          .findLast(
            (earlier) =>
              earlier.role === "tool" && normalizeWhitespace(contentText(earlier.content)).includes(value),
          );
        artifactItems.push({
          answer: value,
          source: source?.role === "tool" ? source.toolCallId : undefined,
        });
      }
    }
  });
  const { missing } = checkFigureProvenance(
    artifactItems.map((item) => item.answer),
    messages,
    { view: withoutArtifactArgs },
  );
  const artifactFigures = retention(artifactItems, viewText(withoutArtifactArgs), callsById);
  artifactFigures.inView = artifactItems.length - missing.length;
  artifactFigures.oneReReadAway = artifactItems.filter(
    (item) =>
      missing.includes(item.answer) &&
      item.source !== undefined &&
      text.includes(rereadOf(callsById, item.source) ?? "\u0000"),
  ).length;
  artifactFigures.lost = missing.filter((figure) => {
    const item = artifactItems.find((candidate) => candidate.answer === figure);
    return !(item?.source !== undefined && text.includes(rereadOf(callsById, item.source) ?? "\u0000"));
  });

  const last = messages[messages.length - 1] as Message;
  const pending = last.role === "assistant" ? last.toolCalls?.[0] : undefined;
  const viewLast = view.messages[view.messages.length - 1];
  const pendingKept =
    pending !== undefined &&
    viewLast?.role === "assistant" &&
    JSON.stringify(viewLast.toolCalls) ===
      JSON.stringify(last.role === "assistant" ? last.toolCalls : undefined);
  const viewIndex = indexThread(view.messages);
  const answered = view.messages.filter(
    (message) => message.role === "tool" && message.toolName === "ask_user",
  );
  const answeredPaired =
    answered.length > 0 &&
    answered.every(
      (message) => message.role === "tool" && viewIndex.callFor(message)?.id === message.toolCallId,
    );
  let resumePairs = false;
  if (pending) {
    const resumed: Message[] = [
      ...messages,
      { role: "tool", toolCallId: pending.id, toolName: pending.name, content: "Summarise it." },
    ];
    const resumedView = assembleModelView(resumed, digests, { disabled: false });
    const result = resumedView.messages[resumedView.messages.length - 1];
    resumePairs =
      result?.role === "tool" &&
      indexThread(resumedView.messages).callFor(result)?.id === pending.id &&
      resumedView.report.stale === 0 &&
      resumedView.report.substitutions === view.report.substitutions;
  }

  const bullets: FixtureEvaluation["bullets"] = { total: 0, midSentence: [], furniture: [] };
  for (const entry of digests.values()) {
    if (entry.kind !== "digest" || !entry.digest.startsWith(DIGEST_HEADER)) continue;
    for (const bullet of digestBullets(entry.digest)) {
      bullets.total++;
      if (endsMidSentence(bullet)) bullets.midSentence.push(bullet);
      if (carriesFurniture(bullet)) bullets.furniture.push(bullet);
    }
  }

  const resultIds = new Set(
    messages.flatMap((message) =>
      message.role === "tool" && message.toolCallId ? [message.toolCallId] : [],
    ),
  );
  const tightBudgetChars = Math.floor(view.report.assembledChars * TIGHT_BUDGET_SHARE);
  const recall: FixtureEvaluation["recall"] = { default: {}, tight: {}, tightBudgetChars };
  for (const integration of integrations(messages, digests)) {
    recall.default[integration.name] = recallThroughHandles(
      integration,
      fixture.probes,
      { disabled: false },
      resultIds,
    );
    recall.tight[integration.name] = recallThroughHandles(
      integration,
      fixture.probes,
      { disabled: false, historyBudgetChars: tightBudgetChars },
      resultIds,
    );
  }

  return {
    name: fixture.name,
    rawChars: view.report.rawChars,
    viewChars: view.report.assembledChars,
    passes,
    digests,
    view,
    probes,
    probesOnCondensedPages: fixture.probes.filter((probe) => digests.has(probe.toolCallId)).length,
    artifactFigures,
    interrupt: { pendingKept, answeredPaired, resumePairs },
    bullets,
    recall,
  };
}

/** One line of the eval table. */
export function evaluationRow(evaluation: FixtureEvaluation): string {
  const integer = (value: number) => value.toLocaleString("en-US");
  const share = (part: number, whole: number) => `${((100 * part) / Math.max(1, whole)).toFixed(1)}%`;
  const { probes, artifactFigures: artifacts } = evaluation;
  return `| ${evaluation.name} | ${integer(evaluation.rawChars)} | ${integer(evaluation.viewChars)} | ${share(evaluation.viewChars, evaluation.rawChars)} | ${probes.inView}/${probes.total} (${share(probes.inView, probes.total)}) | ${probes.inView + probes.oneReReadAway}/${probes.total} (${share(probes.inView + probes.oneReReadAway, probes.total)}) | ${evaluation.probesOnCondensedPages}/${probes.total} | ${artifacts.inView}+${artifacts.oneReReadAway}/${artifacts.total} | ${evaluation.digests.size} |`;
}

/** One line per fixture and scenario of the read_original table: probes not in view, recovered by following a handle, per integration. */
export function recallRows(evaluation: FixtureEvaluation): string[] {
  return (["default", "tight"] as const).map((scenario) => {
    const byIntegration = evaluation.recall[scenario];
    const cells = Object.values(byIntegration).map(
      (count) => `${count.recovered}/${count.notInView}${count.danglingHandles.length ? " (dangling!)" : ""}`,
    );
    const budget =
      scenario === "tight" ? ` (budget ${evaluation.recall.tightBudgetChars.toLocaleString("en-US")})` : "";
    return `| ${evaluation.name} | ${scenario}${budget} | ${cells.join(" | ")} |`;
  });
}

export function recallHeader(evaluation: FixtureEvaluation): string {
  const names = Object.keys(evaluation.recall.default);
  return `| fixture | view | ${names.map((name) => `${name}: recovered / not in view`).join(" | ")} |\n|---|---|${names.map(() => "---:").join("|")}|`;
}

export const EVALUATION_HEADER = `| fixture | raw chars | view chars | view/raw | strict retention | recoverable retention | probes on condensed pages | artifact figures (in view + one re-read away / total) | digest rows |
|---|---:|---:|---:|---:|---:|---:|---:|---:|`;
