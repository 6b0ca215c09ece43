import { contentText, renderToolCall } from "@context-cleaner/assembler/internal";
import type { DigestCandidate } from "../classify/classify-thread";
import type { DigestRequest } from "../ports";
import { provenanceArgs } from "./provenance-args";

/** Groups digest candidates into requests: the pages of one document, in thread order. */
export function groupRequests(
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
