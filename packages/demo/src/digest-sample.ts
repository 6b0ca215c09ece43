import type { DigestMap, Message, ToolCall } from "@context-cleaner/assembler";
import { renderToolCall, resolveToolPolicy } from "@context-cleaner/assembler/internal";
import type { SimulationProbe } from "./view-measures";

/** A digest beside the page it stands for, for showing. */
export interface DigestSample {
  toolCallId: string;
  /** The call that reads the page again. */
  call: string;
  original: string;
  digest: string;
  /** A probe answer on the page, which the digest keeps verbatim when `answerKept`. */
  answer?: string;
  answerKept?: boolean;
}

/** A digested page holding a probe answer (the first such), else the first digested page. */
export function digestSample(
  messages: readonly Message[],
  digests: DigestMap,
  probes: readonly SimulationProbe[],
): DigestSample | undefined {
  const calls = new Map<string, ToolCall>();
  for (const message of messages) {
    if (message.role === "assistant") for (const call of message.toolCalls ?? []) calls.set(call.id, call);
  }
  const digested = messages.filter(
    (message) =>
      message.role === "tool" &&
      (digests.get(message.toolCallId)?.kind ?? "digest") === "digest" &&
      digests.has(message.toolCallId),
  );
  const chosen =
    digested.find((message) =>
      probes.some((probe) => message.role === "tool" && probe.toolCallId === message.toolCallId),
    ) ?? digested[0];
  if (chosen?.role !== "tool" || typeof chosen.content !== "string") return undefined;
  const call = calls.get(chosen.toolCallId);
  const digest = digests.get(chosen.toolCallId)?.digest ?? "";
  const answer = probes.find((probe) => probe.toolCallId === chosen.toolCallId)?.answer;
  return {
    toolCallId: chosen.toolCallId,
    call: call
      ? renderToolCall(call, resolveToolPolicy(undefined).ruleFor(call.name).provenanceArgs)
      : chosen.toolName,
    original: chosen.content,
    digest,
    ...(answer
      ? { answer, answerKept: digest.replace(/\s+/g, " ").includes(answer.replace(/\s+/g, " ")) }
      : {}),
  };
}
