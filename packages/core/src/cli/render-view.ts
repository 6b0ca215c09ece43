import type { Message } from "@context-cleaner/assembler";
import { contentText } from "@context-cleaner/assembler/internal";
import type { DigestJobOutcome } from "../job/outcome";
import type { CleanedThread } from "./clean-thread";

function heading(message: Message, index: number): string {
  if (message.role === "tool")
    return `[${index}] tool ${message.toolName} (${message.toolCallId || "no id"})${message.status === "error" ? " error" : ""}`;
  if (message.role === "assistant" && message.toolCalls?.length) {
    return `[${index}] assistant → ${message.toolCalls.map((call) => `${call.name}(${JSON.stringify(call.args)})`).join(", ")}`;
  }
  return `[${index}] ${message.role}`;
}

/** The assembled view as readable text, one block per message, written a message at a time. */
export function writeViewText(messages: readonly Message[], write: (text: string) => void): void {
  messages.forEach((message, index) => {
    write(`${index > 0 ? "\n\n" : ""}── ${heading(message, index)}\n${contentText(message.content)}`);
  });
}

/**
 * `JSON.stringify({ messages, report }, null, 2)`, written a message at a time: the same
 * text, never held whole.
 */
export function writeViewJson(
  messages: readonly unknown[],
  report: unknown,
  write: (text: string) => void,
): void {
  if (messages.length === 0) write('{\n  "messages": [],');
  else {
    write('{\n  "messages": [');
    messages.forEach((message, index) => {
      // JSON.stringify escapes newlines inside strings, so every "\n" here ends a line.
      write(`${index > 0 ? "," : ""}\n    ${JSON.stringify(message, null, 2).replaceAll("\n", "\n    ")}`);
    });
    write("\n  ],");
  }
  write(`\n  "report": ${JSON.stringify(report, null, 2).replaceAll("\n", "\n  ")}\n}`);
}

function percent(part: number, whole: number): string {
  return whole === 0 ? "n/a" : `${((100 * part) / whole).toFixed(1)}%`;
}

/** Totals of the digest passes of one clean. */
export function summarizePasses(passes: readonly DigestJobOutcome[]) {
  return passes.reduce(
    (total, pass) => ({
      passes: total.passes + 1,
      digestsWritten: total.digestsWritten + pass.digestsWritten,
      calls: total.calls + pass.calls,
      costUsd: total.costUsd + pass.costUsd,
      fallbacks: total.fallbacks + pass.fallbacks,
      droppedBullets: total.droppedBullets + pass.droppedBullets,
    }),
    { passes: 0, digestsWritten: 0, calls: 0, costUsd: 0, fallbacks: 0, droppedBullets: 0 },
  );
}

/** A short human summary of a clean. */
export function renderSummary(result: CleanedThread): string {
  const { report } = result.view;
  const digest = summarizePasses(result.passes);
  return [
    `messages: ${report.messages} in, ${result.view.messages.length} out`,
    `prompt chars: ${report.rawChars.toLocaleString("en-US")} raw → ${report.assembledChars.toLocaleString("en-US")} assembled (${percent(report.assembledChars, report.rawChars)} of raw)`,
    `substitutions: ${report.substitutions} digests · stubs: ${report.stubs.duplicate} duplicate, ${report.stubs.errorRetry} error/retry · stale: ${report.stale} · protected: ${report.protected}`,
    `digest passes: ${digest.passes} · digests written: ${digest.digestsWritten} · calls: ${digest.calls} · cost: $${digest.costUsd.toFixed(4)}${digest.fallbacks ? ` · fallbacks: ${digest.fallbacks}` : ""}`,
    `history backstop: ${report.compaction.fired ? `fired, ${report.compaction.droppedMessages} messages dropped` : "not needed"}`,
  ].join("\n");
}
