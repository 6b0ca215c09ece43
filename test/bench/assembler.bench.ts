/**
 * Assembler benchmark: `assembleModelView` on deterministic synthetic threads
 * of 1 M and 5 M raw chars, side by side in one run. Not a test: nothing here asserts a
 * time. Reports, per thread, medians of:
 *   - a first call (fresh message objects each sample: nothing is kept for them yet), and
 *     that over one sha256 pass (node:crypto) over the same bytes (target ≤ 3×);
 *   - a repeated call on the same message objects, over the first call (target ≤ 0.2×);
 *   - a call on the same objects plus one more exchange (an assistant call and its
 *     6,000-char result), over the first call (target ≤ 0.25×);
 *   - heap growth during each of the three (after a GC), and the heap the first call leaves
 *     kept for the thread; the process's peak RSS;
 *   - assembled chars over raw chars, and what the cleaning did;
 *   - the same threads with every turn's answer naming the document it read (its file id),
 *     one call each: the view over raw with and without the echoed ids.
 *
 *   npm run bench:assembler      (node --expose-gc gives the memory figures)
 *   npm run bench:assembler -- --echo-only      (the echoed-id table alone)
 */
import { createHash } from "node:crypto";
import { performance } from "node:perf_hooks";
import {
  assembleModelView,
  type DigestEntry,
  type DigestMap,
  type Message,
  type ToolCall,
  type ToolMessage,
} from "@context-cleaner/assembler";
import { contentSha256, DIGEST_HEADER, messageChars } from "@context-cleaner/assembler/internal";

/** A small seeded PRNG (mulberry32): the same threads, byte for byte, on every machine. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "the tenant landlord shall pay base rent premises lease term assignment consent not unreasonably " +
  "withheld affiliate transferee notice default cure period indemnify hold harmless insurance casualty " +
  "condemnation estoppel subordination mortgagee guarantor escalator operating expenses taxes " +
  "maintenance repair alterations surrender holdover brokers quiet enjoyment force majeure waiver"
).split(" ");
const FIGURES = [
  "$1,250,000",
  "2.5%",
  "§8.2",
  "Section 14.3",
  "July 21, 2020",
  '"Qualified Transferee"',
  "$48.50",
];
const PAGE_CHARS = [2_000, 3_000, 4_000, 6_000, 8_000];

interface ThreadPlan {
  name: string;
  targetChars: number;
  seed: number;
  /** Whether each turn's closing answer names the document being read, as real agents do. */
  echoDocumentIds?: boolean;
}

/** Varied page text: sentences of legal vocabulary with figures, numbered clauses. */
function pageText(random: () => number, documentId: string, page: number, chars: number): string {
  const parts = [`${documentId} — page ${page + 1}. `];
  let length = parts[0]?.length ?? 0;
  let clause = 1;
  while (length < chars) {
    const words: string[] = [`${page + 1}.${clause++}`];
    const count = 8 + Math.floor(random() * 20);
    for (let index = 0; index < count; index++) {
      words.push(
        random() < 0.08
          ? (FIGURES[Math.floor(random() * FIGURES.length)] as string)
          : (WORDS[Math.floor(random() * WORDS.length)] as string),
      );
    }
    const sentence = `${words.join(" ")}.${random() < 0.2 ? "\n\n" : " "}`;
    parts.push(sentence);
    length += sentence.length;
  }
  return parts.join("").slice(0, chars);
}

/**
 * A heavy thread: user turns, each followed by assistant steps reading documents page by
 * page (varied page sizes), re-reading earlier pages (exact duplicates), searching, and
 * failing then retrying. Returns the messages and the read results eligible for digests.
 */
function buildThread(plan: ThreadPlan): { messages: Message[]; reads: ToolMessage[] } {
  const random = seededRandom(plan.seed);
  const messages: Message[] = [{ role: "system", content: "You are a careful legal assistant." }];
  const reads: ToolMessage[] = [];
  const pages = new Map<string, string>();
  const readCalls: ToolCall[] = [];
  let chars = 0;
  let nextId = 0;
  let documentCount = 0;
  let document = { id: "doc_0", page: 0, pageChars: 4_000 };

  const push = (message: Message) => {
    messages.push(message);
    chars += messageChars(message);
  };
  const exchange = (call: ToolCall, content: string, status?: "error") => {
    push({ role: "assistant", content: "", toolCalls: [call] });
    const result: ToolMessage = {
      role: "tool",
      toolCallId: call.id,
      toolName: call.name,
      content,
      ...(status ? { status } : {}),
    };
    push(result);
    return result;
  };
  const pageFor = (documentId: string, page: number, pageChars: number) => {
    const key = `${documentId}#${page}`;
    let text = pages.get(key);
    if (text === undefined) {
      text = pageText(random, documentId, page, pageChars);
      pages.set(key, text);
    }
    return text;
  };

  /** Reads the current page of the current document and moves to the next page. */
  const readPage = (call: ToolCall) => {
    readCalls.push(call);
    reads.push(exchange(call, pageFor(document.id, document.page, document.pageChars)));
    document.page++;
  };

  while (chars < plan.targetChars) {
    push({
      role: "user",
      content: `Turn ${messages.length}: continue the review and list the figures that matter.`,
    });
    const steps = 3 + Math.floor(random() * 6);
    for (let step = 0; step < steps && chars < plan.targetChars; step++) {
      const roll = random();
      const id = `call_${nextId++}`;
      if (roll < 0.1 && readCalls.length > 0) {
        // Exact duplicate: an earlier read again (same args, same content).
        const earlier = readCalls[Math.floor(random() * readCalls.length)] as ToolCall;
        const call = { ...earlier, id };
        const content = pageFor(String(earlier.args.file_id), Number(earlier.args.offset) / 100_000, 0);
        reads.push(exchange(call, content));
      } else if (roll < 0.2) {
        const query = `${WORDS[Math.floor(random() * WORDS.length)]} clause`;
        const hits = Array.from(
          { length: 8 },
          (_, hit) =>
            `id: doc_${Math.floor(random() * 50)} — ${query} match ${hit}: ${pageText(random, "hit", hit, 80)}`,
        );
        exchange({ id, name: "search", args: { query } }, hits.join("\n"));
      } else if (roll < 0.25) {
        // A failed read, then its retry: the same tool with the same args, which succeeds.
        const args = { file_id: document.id, offset: document.page * 100_000 };
        exchange(
          { id, name: "read_document", args },
          "Error: upstream timeout after 30s\n  at fetchDocument (reader.js:88)",
          "error",
        );
        readPage({ id: `call_${nextId++}`, name: "read_document", args: { ...args } });
      } else {
        if (document.page >= 3 + Math.floor(random() * 8)) {
          documentCount++;
          document = {
            id: `doc_${documentCount}`,
            page: 0,
            pageChars: PAGE_CHARS[Math.floor(random() * PAGE_CHARS.length)] as number,
          };
        }
        readPage({
          id,
          name: "read_document",
          args: { file_id: document.id, offset: document.page * 100_000 },
        });
      }
    }
    push({
      role: "assistant",
      content: plan.echoDocumentIds
        ? `Here is what I found so far in ${document.id}; the key figures are noted above.`
        : "Here is what I found so far; the key figures are noted above.",
    });
  }
  return { messages, reads };
}

/** Digest rows with correct hashes for about `share` (half) of the read pages (offset > 0). */
function buildDigests(reads: readonly ToolMessage[], seed: number, share = 0.5): DigestMap {
  const random = seededRandom(seed);
  const digests = new Map<string, DigestEntry>();
  for (const read of reads) {
    if (random() >= share || (read.content as string).includes("page 1.")) continue;
    const digest = [
      DIGEST_HEADER,
      "tool: read_document",
      `source: ${read.toolCallId}`,
      "digest:",
      "  - rent $1,250,000/yr with a 2.5% escalator; assignment needs consent (§8.2)",
      `figures verbatim: ${FIGURES.join("; ")}`,
    ].join("\n");
    digests.set(read.toolCallId, {
      digest,
      contentSha256: contentSha256(read.content),
      digestChars: digest.length,
    });
  }
  return digests;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

const gc = (globalThis as { gc?: () => void }).gc;

function sha256Pass(messages: readonly Message[]): number {
  const started = performance.now();
  const hash = createHash("sha256");
  for (const message of messages) {
    hash.update(
      typeof message.content === "string" ? message.content : JSON.stringify(message.content),
      "utf8",
    );
  }
  hash.digest("hex");
  return performance.now() - started;
}

/** One more exchange for a thread: a read of a page no earlier message holds, as new objects. */
function nextExchange(messages: readonly Message[]): Message[] {
  const random = seededRandom(messages.length);
  const id = `call_appended_${messages.length}`;
  const call: ToolCall = { id, name: "read_document", args: { file_id: "doc_appended", offset: 100_000 } };
  return [
    { role: "assistant", content: "", toolCalls: [call] },
    {
      role: "tool",
      toolCallId: id,
      toolName: "read_document",
      content: pageText(random, "doc_appended", 1, 6_000),
    },
  ];
}

/** Runs `call` and returns how long it took, in ms. */
function timed(call: () => unknown): number {
  const started = performance.now();
  call();
  return performance.now() - started;
}

/** Heap growth of `call` in MB, after a GC so earlier garbage does not count (0 without --expose-gc). */
function heapGrowth(call: () => unknown): number {
  if (!gc) return 0;
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  call();
  return (process.memoryUsage().heapUsed - before) / 2 ** 20;
}

interface Row {
  name: string;
  messages: number;
  rawChars: number;
  digestRows: number;
  sha256Ms: number;
  firstMs: number;
  repeatMs: number;
  appendMs: number;
  firstHeapMb: number;
  repeatHeapMb: number;
  appendHeapMb: number;
  retainedMb: number;
  assembledChars: number;
  substitutions: number;
  duplicates: number;
  errorRetries: number;
  compaction: boolean;
}

function measure(plan: ThreadPlan, samples: number): Row {
  const { messages, reads } = buildThread(plan);
  const digests = buildDigests(reads, plan.seed + 1);
  const options = { disabled: false };

  // Warm up the code paths (JIT) on copies that are then dropped.
  for (let warm = 0; warm < 3; warm++) {
    const copy = structuredClone(messages);
    assembleModelView(copy, digests, options);
    assembleModelView(copy, digests, options);
    assembleModelView([...copy, ...nextExchange(copy)], digests, options);
  }

  const times = {
    sha: [] as number[],
    first: [] as number[],
    repeat: [] as number[],
    append: [] as number[],
  };
  let report = assembleModelView(messages, digests, options).report;
  for (let sample = 0; sample < samples; sample++) {
    const fresh = structuredClone(messages);
    const appended = [...fresh, ...nextExchange(fresh)];
    gc?.();
    times.sha.push(sha256Pass(fresh));
    times.first.push(
      timed(() => {
        report = assembleModelView(fresh, digests, options).report;
      }),
    );
    times.repeat.push(timed(() => assembleModelView(fresh, digests, options)));
    times.append.push(timed(() => assembleModelView(appended, digests, options)));
  }
  // Memory, apart from the timings (the GCs it forces would disturb them).
  const heap = {
    first: [] as number[],
    retained: [] as number[],
    repeat: [] as number[],
    append: [] as number[],
  };
  for (let sample = 0; sample < 3; sample++) {
    const fresh = structuredClone(messages);
    const appended = [...fresh, ...nextExchange(fresh)];
    // Twice: a kept index dies with its thread's first message, one collection after it.
    gc?.();
    gc?.();
    const before = process.memoryUsage().heapUsed;
    heap.first.push(heapGrowth(() => assembleModelView(fresh, digests, options)));
    gc?.();
    gc?.();
    heap.retained.push((process.memoryUsage().heapUsed - before) / 2 ** 20);
    heap.repeat.push(heapGrowth(() => assembleModelView(fresh, digests, options)));
    heap.append.push(heapGrowth(() => assembleModelView(appended, digests, options)));
  }
  return {
    name: plan.name,
    messages: messages.length,
    rawChars: report.rawChars,
    digestRows: digests.size,
    sha256Ms: median(times.sha),
    firstMs: median(times.first),
    repeatMs: median(times.repeat),
    appendMs: median(times.append),
    firstHeapMb: median(heap.first),
    repeatHeapMb: median(heap.repeat),
    appendHeapMb: median(heap.append),
    retainedMb: median(heap.retained),
    assembledChars: report.assembledChars,
    substitutions: report.substitutions,
    duplicates: report.stubs.duplicate,
    errorRetries: report.stubs.errorRetry,
    compaction: report.compaction.fired,
  };
}

const plans: Array<[ThreadPlan, number]> = [
  [{ name: "1 M chars", targetChars: 1_000_000, seed: 7 }, 41],
  [{ name: "5 M chars", targetChars: 5_000_000, seed: 11 }, 15],
];

// `-- --echo-only` prints the echoed-id table alone (no timings).
const echoOnly = process.argv.includes("--echo-only");
const rows = echoOnly ? [] : plans.map(([plan, samples]) => measure(plan, samples));
const fixed = (value: number, digits = 2) => value.toFixed(digits);
const lines = [
  "| thread | messages | raw chars | digest rows | sha256 pass (ms) | first call (ms) | first / sha256 (≤ 3×) | repeat (ms) | repeat / first (≤ 0.2×) | +1 exchange (ms) | +1 exchange / first (≤ 0.25×) | heap Δ first / repeat / +1 (MB) | index kept (MB) | assembled / raw | subst. / dup / err stubs | compaction |",
  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|---|",
  ...rows.map(
    (row) =>
      `| ${row.name} | ${row.messages.toLocaleString("en-US")} | ${row.rawChars.toLocaleString("en-US")} | ${row.digestRows} | ${fixed(row.sha256Ms)} | ${fixed(row.firstMs)} | ${fixed(row.firstMs / row.sha256Ms)}× | ${fixed(row.repeatMs)} | ${fixed(row.repeatMs / row.firstMs)}× | ${fixed(row.appendMs)} | ${fixed(row.appendMs / row.firstMs)}× | ${fixed(row.firstHeapMb, 1)} / ${fixed(row.repeatHeapMb, 1)} / ${fixed(row.appendHeapMb, 1)} | ${fixed(row.retainedMb, 1)} | ${fixed((100 * row.assembledChars) / row.rawChars, 1)} % | ${row.substitutions} / ${row.duplicates} / ${row.errorRetries} | ${row.compaction ? "fired" : "no"} |`,
  ),
];
const peakRssMb = process.resourceUsage().maxRSS / 1024;
if (!echoOnly) reportTimings();

function reportTimings(): void {
  console.log(
    `\nassembleModelView benchmark — node ${process.version}, ${gc ? "with" : "without"} --expose-gc\n`,
  );
  console.log(lines.join("\n"));
  console.log(
    `\nPeak RSS of the whole run (threads, clones and all): ${fixed(peakRssMb, 0)} MB. Medians. ` +
      "First call: fresh message objects (nothing kept for them yet). Repeat: the same objects again. " +
      "+1 exchange: the same objects and one more assistant call with its 6,000-char result. " +
      "Heap Δ: growth during the call (after a GC). Index kept: heap still held after a GC by what the first call keeps for the thread.",
  );
}

// Answers that echo the file id: the referenced-by-window keep-rule keeps what the window
// refers to (the document's latest page, a page named by offset, a quoted passage), so an
// echoed id should cost about one page, not the whole document.
/**
 * One long contract read page by page over three turns (8 pages of 8,000 chars a turn),
 * each turn's answer naming it (`contract_7`) or not, with a digest row for every page: the
 * case where an echoed id used to keep every page raw.
 */
function contractTurns(echo: boolean): { messages: Message[]; reads: ToolMessage[] } {
  const random = seededRandom(3);
  const messages: Message[] = [{ role: "system", content: "You are a careful legal assistant." }];
  const reads: ToolMessage[] = [];
  let page = 0;
  for (let turn = 0; turn < 3; turn++) {
    messages.push({ role: "user", content: `Turn ${turn + 1}: read the next part of the contract.` });
    for (let step = 0; step < 8; step++, page++) {
      const call: ToolCall = {
        id: `c_${page}`,
        name: "read_document",
        args: { file_id: "contract_7", offset: page * 8_000 },
      };
      const result: ToolMessage = {
        role: "tool",
        toolCallId: call.id,
        toolName: call.name,
        content: pageText(random, "contract_7", page, 8_000),
      };
      messages.push({ role: "assistant", content: "", toolCalls: [call] }, result);
      reads.push(result);
    }
    messages.push({
      role: "assistant",
      content: echo
        ? "Per contract_7, the rent is $1,250,000 with a 2.5% escalator."
        : "The rent is $1,250,000 with a 2.5% escalator.",
    });
  }
  messages.push({ role: "user", content: "What does the assignment clause require?" });
  return { messages, reads };
}

const echoLines = [
  "| thread | view / raw, plain answers | view / raw, answers echo the file id | echoed / plain | protected results plain / echoed |",
  "|---|---:|---:|---:|---|",
  ...[...plans.map(([plan]) => plan), { name: "one contract over 3 turns", targetChars: 0, seed: 0 }].map(
    (plan) => {
      const contract = plan.targetChars === 0;
      const plain = contract ? contractTurns(false) : buildThread(plan);
      const echoed = contract ? contractTurns(true) : buildThread({ ...plan, echoDocumentIds: true });
      const share = contract ? 1 : 0.5;
      const plainReport = assembleModelView(
        plain.messages,
        buildDigests(plain.reads, plan.seed + 1, share),
      ).report;
      const echoedReport = assembleModelView(
        echoed.messages,
        buildDigests(echoed.reads, plan.seed + 1, share),
      ).report;
      return `| ${plan.name} | ${fixed((100 * plainReport.assembledChars) / plainReport.rawChars, 1)} % (${plainReport.assembledChars.toLocaleString("en-US")}) | ${fixed((100 * echoedReport.assembledChars) / echoedReport.rawChars, 1)} % (${echoedReport.assembledChars.toLocaleString("en-US")}) | ${fixed(echoedReport.assembledChars / plainReport.assembledChars, 3)}× | ${plainReport.protected} / ${echoedReport.protected} |`;
    },
  ),
];
console.log("\nAnswers that echo the file id (one call each, fresh threads):\n");
console.log(echoLines.join("\n"));
