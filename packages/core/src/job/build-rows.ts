import { canonicalJson, contentText, storableText } from "@context-cleaner/assembler/internal";
import type { DigestCandidate } from "../classify/classify-thread";
import type { DigestResult, DigestRow, PageDigest } from "../ports";
import { renderDigest } from "../render/render-digest";
import { renderSupersededSearchStub } from "../render/render-superseded-search-stub";
import { provenanceArgs } from "./provenance-args";

function baseRow(
  threadId: string,
  candidate: DigestCandidate,
): Omit<DigestRow, "digest" | "digestChars" | "kind" | "model" | "inputTokens" | "outputTokens" | "costUsd"> {
  return {
    threadId,
    toolCallId: candidate.message.toolCallId,
    toolName: candidate.message.toolName,
    provenanceArgs: provenanceArgs(candidate),
    contentSha256: candidate.contentSha256,
    originalChars: candidate.originalChars,
  };
}

/** The deterministic stub of a superseded search, or undefined when it cannot keep its promise. */
export function supersededSearchRow(threadId: string, candidate: DigestCandidate): DigestRow | undefined {
  const stub = renderSupersededSearchStub({
    call: candidate.call,
    content: contentText(candidate.message.content),
    hitIdPattern: candidate.rule.hitIdPattern as RegExp,
    laterToolCallId: candidate.supersededBy as string,
  });
  if (stub.text.length >= candidate.originalChars) return undefined;
  // The stub promises every hit id verbatim: with none found the list cannot be kept faithfully.
  if (stub.hitIds.length === 0) return undefined;
  const digest = storableText(stub.text);
  return {
    ...baseRow(threadId, candidate),
    kind: "superseded-search",
    digest,
    digestChars: [...digest].length,
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
  reusable: DigestRow | undefined,
): DigestRow | undefined {
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
): { row: DigestRow | undefined; droppedBullets: number } {
  const rendered = renderDigest(
    {
      call: candidate.call,
      rule: candidate.rule,
      source: input.source,
      bullets: input.page.bullets,
      ...(input.page.title ? { title: input.page.title } : {}),
      ...(candidate.timeVarying ? { asOfCall: true } : {}),
    },
    input.caps,
  );
  const droppedBullets = rendered.bullets.dropped;
  if (rendered.chars >= candidate.originalChars) return { row: undefined, droppedBullets };
  const share = (value: number) => value / input.pagesInCall;
  // A NUL copied from the document cannot be stored; the original stays in the thread.
  const digest = storableText(rendered.text);
  return {
    droppedBullets,
    row: {
      ...baseRow(threadId, candidate),
      kind: "digest",
      digest,
      digestChars: [...digest].length,
      model: input.page.model ?? input.result.model,
      inputTokens: Math.round(share(input.result.usage.inputTokens)),
      outputTokens: Math.round(share(input.result.usage.outputTokens)),
      costUsd: share(input.result.costUsd),
    },
  };
}
