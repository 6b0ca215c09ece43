import type { Message, ToolCall } from "@context-cleaner/assembler";
import {
  contentText,
  normalizeWhitespace,
  renderToolCall,
  resolveToolPolicy,
} from "@context-cleaner/assembler/internal";
import type { ThreadFixture } from "@context-cleaner/demo/generator";
import { loadFixtures } from "../../test/fixtures/load-fixtures";

let cached: ThreadFixture | undefined;

/** The ground-lease fixture thread: over 600,000 chars of tool output, with probes. */
export function heavyThread(): ThreadFixture {
  cached ??= loadFixtures()[0] as ThreadFixture;
  return cached;
}

/** Chars of tool results in a thread: what a runtime publishes as `rawToolChars`. */
export function rawToolChars(messages: readonly Message[]): number {
  return messages.reduce(
    (sum, message) => sum + (message.role === "tool" ? contentText(message.content).length : 0),
    0,
  );
}

/** Chars of a view, as the model gets it. */
export function viewChars(messages: readonly Message[]): number {
  return messages.reduce((sum, message) => sum + contentText(message.content).length, 0);
}

/**
 * How the fixture's probes fare in a view: answer verbatim in view, or the view holds the
 * one call that re-reads the page holding it, or lost.
 */
export function probeRetention(
  fixture: ThreadFixture,
  view: readonly Message[],
): { total: number; inView: number; oneReReadAway: number; lost: string[] } {
  const text = normalizeWhitespace(view.map((message) => contentText(message.content)).join("\n"));
  const calls = new Map<string, ToolCall>();
  for (const message of fixture.messages) {
    if (message.role === "assistant") for (const call of message.toolCalls ?? []) calls.set(call.id, call);
  }
  const policy = resolveToolPolicy(undefined);
  const result = { total: fixture.probes.length, inView: 0, oneReReadAway: 0, lost: [] as string[] };
  for (const probe of fixture.probes) {
    const call = calls.get(probe.toolCallId);
    const reread = call ? renderToolCall(call, policy.ruleFor(call.name).provenanceArgs) : undefined;
    if (text.includes(normalizeWhitespace(probe.answer))) result.inView += 1;
    else if (reread !== undefined && text.includes(reread)) result.oneReReadAway += 1;
    else result.lost.push(probe.answer);
  }
  return result;
}
