/**
 * Figure extraction on adversarial input: `extractFigures` on each input built to make a
 * figure pattern backtrack (packages/assembler/test/fixtures/adversarial-figures.ts), at
 * 25k, 50k, 100k and 200k chars. Not a test: nothing here asserts a time. Reports, per
 * input, the median time of a scan at each length and the growth from 25k to 200k chars:
 * about 8× is linear, 64× would be quadratic. A contract-like text of the same lengths is
 * the baseline.
 *
 *   npm run bench:figures
 *   FIGURES_BENCH_SAMPLES=9 npm run bench:figures      (samples per length, default 5)
 */
import { performance } from "node:perf_hooks";
import { extractFigures } from "@context-cleaner/assembler/figures";
import { adversarialFigureInputs } from "../../packages/assembler/test/fixtures/adversarial-figures";

const LENGTHS = [25_000, 50_000, 100_000, 200_000];
const SAMPLES = Number(process.env.FIGURES_BENCH_SAMPLES ?? 5);
const CLAUSE =
  'The Tenant shall pay Base Rent of $1,250,000 per annum, increased by 2.5% on July 1, 2027, as set out in Section 4.2 and "Operating Expenses" (Exhibit B). ';

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function scanMs(text: string): number {
  extractFigures(text); // warm-up: compiles the patterns for this shape of input
  const times: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample++) {
    const started = performance.now();
    extractFigures(text);
    times.push(performance.now() - started);
  }
  return median(times);
}

const byLabel = new Map<string, number[]>();
for (const chars of LENGTHS) {
  const inputs: [string, string][] = [
    ["contract text (baseline)", CLAUSE.repeat(Math.ceil(chars / CLAUSE.length)).slice(0, chars)],
    ...adversarialFigureInputs(chars),
  ];
  for (const [label, text] of inputs) byLabel.set(label, [...(byLabel.get(label) ?? []), scanMs(text)]);
}

const first = LENGTHS[0] as number;
const last = LENGTHS[LENGTHS.length - 1] as number;
console.log(
  `extractFigures, median of ${SAMPLES} scans per length; growth = time at ${last.toLocaleString("en-US")} chars / time at ${first.toLocaleString("en-US")} (linear ≈ ${last / first}×)`,
);
console.log(
  `| input | ${LENGTHS.map((chars) => `${(chars / 1000).toFixed(0)}k chars`).join(" | ")} | growth |`,
);
console.log(`|---|${LENGTHS.map(() => "---:").join("|")}|---:|`);
for (const [label, times] of byLabel) {
  const growth = (times[times.length - 1] as number) / Math.max(times[0] as number, 0.001);
  console.log(
    `| ${label} | ${times.map((ms) => `${ms.toFixed(1)} ms`).join(" | ")} | ${growth.toFixed(1)}× |`,
  );
}
