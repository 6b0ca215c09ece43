/**
 * The demo's HTML report in a real headless browser (Debian's chromium, driven by
 * playwright-core): it loads without console errors, every chart has data, and the
 * retention bars and the digest beside its page are there. The screenshot is written to
 * the test's temporary directory (kept, and its path printed, with KEEP_REPORT_SCREENSHOT=1).
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDemo } from "./demo";

const CHROMIUM = "/usr/bin/chromium";
// Raw, blind caps, the two library peers, clear-old-tool-results, and context-cleaner inline only, with
// digests, with the worker at turn end and with drop_block at a watermark.
const CONTESTANTS = 9;
/** Blind accounting and the two effective tracks (worker after the user's next message, at turn end). */
const BUDGET_TRACKS = 3;

let directory: string;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];
const output: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: test/services/run.sh installs Debian's chromium`);
  }
  directory = await mkdtemp(join(tmpdir(), "context-cleaner-report-"));
  const reportPath = join(directory, "report.html");
  await runDemo((line) => output.push(line), { reportPath });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(String(error)));
  await page.goto(pathToFileURL(reportPath).href, { waitUntil: "load" });
});

afterAll(async () => {
  await browser?.close();
  if (process.env.KEEP_REPORT_SCREENSHOT === "1") console.log(`report and screenshot kept in ${directory}`);
  else if (directory) await rm(directory, { recursive: true, force: true });
});

describe("the demo's HTML report in headless chromium", () => {
  it("is written where the demo says, and loads with no console error", async () => {
    expect(output.at(-1)).toBe(`\nReport: ${join(directory, "report.html")}`);
    expect(await page.title()).toBe("context-cleaner: turns through the caps");
    expect(consoleErrors).toEqual([]);
    await page.screenshot({ path: join(directory, "report.png"), fullPage: true });
  });

  it("draws every line chart with one series per contestant (prompt chars, cost per turn) or per budget track", async () => {
    const charts = await page.$$eval("svg[data-chart='line']", (svgs) =>
      svgs.map((svg) => ({
        figure: svg.closest("figure")?.id ?? "",
        declared: Number(svg.getAttribute("data-series-count")),
        series: [...svg.querySelectorAll("path[data-series]")].map((path) => {
          const numbers = (path.getAttribute("d") ?? "").match(/-?\d+(\.\d+)?/g) ?? [];
          // getBBox: the rendered extent, so the coordinates draw something.
          const box = (path as unknown as { getBBox(): { width: number } }).getBBox();
          return { id: path.getAttribute("data-series"), numbers: numbers.length, width: box.width };
        }),
      })),
    );
    // Five threads (four fixtures and one long thread), four charts each: prompt chars and
    // cost per turn (warm, cold) per contestant, and the tool budget per track.
    expect(charts).toHaveLength(20);
    for (const chart of charts) {
      const perContestant = chart.figure.includes("-prompt-") || chart.figure.includes("-cost-");
      const expected = perContestant ? CONTESTANTS : BUDGET_TRACKS;
      expect(chart.series, chart.figure).toHaveLength(expected);
      expect(chart.declared).toBe(expected);
      expect(new Set(chart.series.map((series) => series.id)).size).toBe(expected);
      for (const series of chart.series) {
        // At least two points (x y pairs), spread across the plot.
        expect(series.numbers).toBeGreaterThanOrEqual(8);
        expect(series.width).toBeGreaterThan(100);
      }
    }
  });

  it("shows the retention bars: strict and recoverable per contestant, in both sets", async () => {
    const bars = await page.$$eval("svg[data-chart='bars']", (svgs) =>
      svgs.map((svg) =>
        [...svg.querySelectorAll("rect[data-series]")].map((rect) => ({
          id: rect.getAttribute("data-series") ?? "",
          width: Number(rect.getAttribute("width")),
          height: Number(rect.getAttribute("height")),
        })),
      ),
    );
    expect(bars).toHaveLength(2);
    for (const set of bars) {
      expect(set).toHaveLength(2 * CONTESTANTS);
      expect(set.every((bar) => Number.isFinite(bar.width) && bar.height > 0)).toBe(true);
      expect(set.find((bar) => bar.id === "raw-strict")?.width).toBeGreaterThan(0);
      expect(set.filter((bar) => bar.id.endsWith("-recoverable") && bar.width > 0).length).toBeGreaterThan(4);
    }
  });

  it("puts the comparison tables and one digest beside its original page, the probe answer marked", async () => {
    // Per set: the comparison and the cost table with a floor row, the previous turn's table without.
    for (const set of ["fixtures", "long"]) {
      expect(await page.locator(`#${set}-table tbody tr`).count()).toBe(CONTESTANTS + 1);
      expect(await page.locator(`#${set}-cost-table tbody tr`).count()).toBe(CONTESTANTS + 1);
      expect(await page.locator(`#${set}-previous-turn-table tbody tr`).count()).toBe(CONTESTANTS);
    }
    // Wide tables scroll inside their container: the page itself does not scroll sideways.
    expect(await page.locator("div.table-scroll > table.comparison").count()).toBe(6);
    expect(await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")).toBe(true);
    for (const panel of ["#digest-original", "#digest-condensed"]) {
      await expect(page.locator(panel).isVisible()).resolves.toBe(true);
      expect(await page.locator(`${panel} mark`).count()).toBeGreaterThan(0);
    }
    const digest = (await page.locator("#digest-condensed pre.full").textContent()) ?? "";
    const original = (await page.locator("#digest-original pre.full").textContent()) ?? "";
    expect(digest).toContain("[Condensed by context-cleaner");
    expect(digest).toContain("re-read: read_document(");
    expect(original.length).toBeGreaterThan(5 * digest.length);
  });
});
