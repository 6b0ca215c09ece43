import { canonicalJson, contentText, renderToolCall } from "@context-cleaner/assembler";
import type { DigestRowInput, StoredDigest } from "@context-cleaner/db";
import type { DigestCandidate } from "../classify/classify-thread";
import type { DigestRequest, DigestResult, PageDigest } from "../ports";
import { renderDigest } from "../render/render-digest";
import { renderSupersededSearchStub } from "../render/render-superseded-search-stub";

/** The rows a digest pass writes, built from its candidates (DESIGN §6, §9). */

function provenanceArgs(candidate: DigestCandidate): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const names =
    candidate.rule.provenanceArgs.length > 0
      ? candidate.rule.provenanceArgs
      : Object.keys(candidate.call.args);
  for (const name of names) if (name in candidate.call.args) args[name] = candidate.call.args[name];
  return args;
}

function baseRow(
  threadId: string,
  candidate: DigestCandidate,
): Omit<
  DigestRowInput,
  "digest" | "digestChars" | "kind" | "model" | "inputTokens" | "outputTokens" | "costUsd"
> {
  return {
    threadId,
    toolCallId: candidate.message.toolCallId,
    toolName: candidate.message.toolName,
    provenanceArgs: provenanceArgs(candidate),
    contentSha256: candidate.contentSha256,
    originalChars: candidate.originalChars,
  };
}

/** Groups digest candidates into requests: the pages of one document, in thread order. */
export function digestRequests(
  candidates: readonly DigestCandidate[],
  maxPagesPerCall: number,
): DigestCandidate[][] {
  const byDocument = new Map<string, DigestCandidate[]>();
  for (const candidate of candidates) {
    const key = `${candidate.message.toolName}\u0000${candidate.source ?? candidate.message.toolCallId}`;
    const group = byDocument.get(key);
    if (group) group.push(candidate);
    else byDocument.set(key, [candidate]);
  }
  const requests: DigestCandidate[][] = [];
  for (const group of byDocument.values()) {
    for (let start = 0; start < group.length; start += maxPagesPerCall)
      requests.push(group.slice(start, start + maxPagesPerCall));
  }
  return requests;
}

export function toRequest(group: readonly DigestCandidate[]): DigestRequest {
  const first = group[0] as DigestCandidate;
  const idArg = first.rule.provenanceArgs[0];
  return {
    toolName: first.message.toolName,
    sourceLabel: idArg && first.source !== undefined ? `${idArg}=${first.source}` : first.message.toolName,
    pages: group.map((candidate) => ({
      toolCallId: candidate.message.toolCallId,
      content: contentText(candidate.message.content),
      provenanceArgs: provenanceArgs(candidate),
      reread: renderToolCall(candidate.call, candidate.rule.provenanceArgs),
    })),
  };
}

/** Cat. 3: the deterministic stub of a superseded search, or undefined when it cannot keep its promise. */
export function supersededSearchRow(
  threadId: string,
  candidate: DigestCandidate,
): DigestRowInput | undefined {
  const stub = renderSupersededSearchStub({
    call: candidate.call,
    content: contentText(candidate.message.content),
    hitIdPattern: candidate.rule.hitIdPattern as RegExp,
    laterToolCallId: candidate.supersededBy as string,
  });
  if (stub.text.length >= candidate.originalChars) return undefined;
  // The stub promises every hit id verbatim: with none found the list cannot be kept faithfully.
  if (stub.hitIds.length === 0) return undefined;
  return {
    ...baseRow(threadId, candidate),
    kind: "superseded-search",
    digest: stub.text,
    digestChars: [...stub.text].length,
    model: null,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
  };
}

/** Content-hash reuse: a copy of the org's digest of the same bytes read the same way, at no cost. */
export function reusedRow(
  threadId: string,
  candidate: DigestCandidate,
  reusable: StoredDigest | undefined,
): DigestRowInput | undefined {
  if (
    reusable?.kind !== "digest" ||
    reusable.toolName !== candidate.message.toolName ||
    canonicalJson(reusable.provenanceArgs) !== canonicalJson(provenanceArgs(candidate))
  ) {
    return undefined;
  }
  return {
    ...baseRow(threadId, candidate),
    kind: "digest",
    digest: reusable.digest,
    digestChars: reusable.digestChars,
    model: reusable.model,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
  };
}

/** A model's page digest rendered to the contract; no row when it would not be shorter. */
export function digestedRow(
  threadId: string,
  candidate: DigestCandidate,
  input: {
    page: PageDigest;
    result: DigestResult;
    source: string;
    pagesInCall: number;
    caps: { digestCharCap: number; digestCharCapMax: number };
  },
): { row: DigestRowInput | undefined; droppedBullets: number } {
  const rendered = renderDigest(
    {
      call: candidate.call,
      rule: candidate.rule,
      source: input.source,
      bullets: input.page.bullets,
      ...(input.page.title ? { title: input.page.title } : {}),
    },
    input.caps,
  );
  const droppedBullets = rendered.bullets.dropped;
  if (rendered.chars >= candidate.originalChars) return { row: undefined, droppedBullets };
  const share = (value: number) => value / input.pagesInCall;
  return {
    droppedBullets,
    row: {
      ...baseRow(threadId, candidate),
      kind: "digest",
      digest: rendered.text,
      digestChars: [...rendered.text].length,
      model: input.page.model ?? input.result.model,
      inputTokens: Math.round(share(input.result.usage.inputTokens)),
      outputTokens: Math.round(share(input.result.usage.outputTokens)),
      costUsd: share(input.result.costUsd),
    },
  };
}
