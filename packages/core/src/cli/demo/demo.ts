import { createExtractiveDigester } from "../../digesters/extractive-digester";
import { cleanThread } from "../clean-thread";
import { renderSummary } from "../render-view";
import { buildHeavyThread } from "./heavy-thread";
import { probeRetention } from "./probe-retention";

/** The bundled example: three long contracts read page by page over several turns. */
export const DEMO_THREAD = {
  name: "lease-review",
  seed: 7,
  titles: ["Ground Lease — 445 W 35th", "Senior Credit Agreement", "Completion Guaranty"],
  documentChars: 150_000,
  pageChars: 25_000,
  probesPerDocument: 10,
} as const;

/**
 * Runs the main job on embedded defaults: the worker digests the bundled example thread
 * (extractive digester, in-memory store), then the runtime assembles the model's view.
 */
export async function runDemo(write: (line: string) => void): Promise<void> {
  const fixture = buildHeavyThread({ ...DEMO_THREAD, titles: [...DEMO_THREAD.titles] });
  write(
    `Example thread "${fixture.name}": ${fixture.messages.length} messages, ${fixture.documents.length} contracts read page by page.`,
  );
  write("Worker: classifying and digesting in memory with the extractive digester (no network)…");
  const result = await cleanThread(fixture.messages, { digester: createExtractiveDigester() });
  write(renderSummary(result));
  const retention = probeRetention(result.view.messages, fixture.probes);
  write(
    `probe facts: ${retention.total} · in view: ${retention.inView} · one re-read away: ${retention.oneReReadAway} · lost: ${retention.lost.length}`,
  );
  const sample = result.view.messages.find(
    (message) => message.role === "tool" && String(message.content).startsWith("[Condensed"),
  );
  if (sample) write(`\nA digest as the model sees it:\n${String(sample.content)}`);
}
