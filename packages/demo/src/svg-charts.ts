/**
 * Inline SVG charts for the HTML report: no scripts, no external assets. Every series is a
 * `<path data-series="…">` (lines) or a set of `<rect data-series="…">` (bars), so the page
 * can be checked for data without reading pixels.
 */

export interface LineSeries {
  id: string;
  label: string;
  color: string;
  /** Dash pattern, to tell overlapping lines apart. */
  dash?: string;
  values: readonly number[];
}

export interface LineChart {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  /** One label per point, e.g. turn numbers. */
  xTicks: readonly string[];
  /** Print every nth label under the axis (the first always), for many points; each point's title keeps its own. @default 1 */
  labelEvery?: number;
  series: readonly LineSeries[];
  /** Horizontal reference lines, e.g. a budget. */
  rules?: readonly { value: number; label: string }[];
  /** Top of the y axis; series above it leave the plot (clipped) and are named in a note. */
  yMax?: number;
  /** A sentence under the chart. */
  note?: string;
}

export interface BarGroup {
  label: string;
  bars: readonly { id: string; label: string; color: string; opacity?: number; value: number }[];
}

export interface BarChart {
  id: string;
  title: string;
  /** Bars run from 0 to this value (e.g. 100 for percentages). */
  max: number;
  unit: string;
  groups: readonly BarGroup[];
}

const WIDTH = 720;
const HEIGHT = 300;
const MARGIN = { top: 36, right: 24, bottom: 48, left: 72 };

export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** A round axis maximum at or above `value` (1, 2 or 5 times a power of ten). */
export function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** `1.2M`, `320k`, `950` */
export function shortNumber(value: number): string {
  if (Math.abs(value) >= 1_000_000) return `${Number((value / 1_000_000).toFixed(2))}M`;
  if (Math.abs(value) >= 1_000) return `${Number((value / 1_000).toFixed(1))}k`;
  return String(Math.round(value));
}

const round = (value: number) => Number(value.toFixed(1));

// Over 60 lines: one SVG template (axes, grid, series, legend) written in drawing order.
export function renderLineChart(chart: LineChart): string {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const highest = Math.max(
    1,
    ...chart.series.flatMap((series) => series.values),
    ...(chart.rules ?? []).map((rule) => rule.value),
  );
  const yMax = chart.yMax ?? niceMax(highest);
  const clipId = `${chart.id}-plot`;
  const points = Math.max(1, chart.xTicks.length - 1);
  const x = (index: number) => round(MARGIN.left + (plotWidth * index) / points);
  const y = (value: number) => round(MARGIN.top + plotHeight - (plotHeight * value) / yMax);
  const parts: string[] = [];
  for (let tick = 0; tick <= 4; tick++) {
    const value = (yMax * tick) / 4;
    parts.push(
      `<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(value)}" y2="${y(value)}"/>`,
      `<text class="tick" x="${MARGIN.left - 8}" y="${y(value) + 4}" text-anchor="end">${shortNumber(value)}</text>`,
    );
  }
  const every = chart.labelEvery ?? 1;
  chart.xTicks.forEach((tick, index) => {
    if (index > 0 && (index + 1) % every !== 0) return;
    parts.push(
      `<text class="tick" x="${x(index)}" y="${HEIGHT - MARGIN.bottom + 18}" text-anchor="middle">${escapeHtml(tick)}</text>`,
    );
  });
  for (const rule of chart.rules ?? []) {
    parts.push(
      `<line class="rule" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(rule.value)}" y2="${y(rule.value)}"/>`,
      `<text class="rule-label" x="${MARGIN.left + 6}" y="${y(rule.value) - 6}">${escapeHtml(rule.label)}</text>`,
    );
  }
  parts.push(
    `<clipPath id="${escapeHtml(clipId)}"><rect x="${MARGIN.left - 4}" y="${MARGIN.top - 4}" width="${plotWidth + 8}" height="${plotHeight + 8}"/></clipPath>`,
  );
  const offScale: string[] = [];
  for (const series of chart.series) {
    const top = Math.max(...series.values);
    if (top > yMax) offScale.push(`${series.label} leaves the scale (up to ${shortNumber(top)})`);
    const d = series.values
      .map((value, index) => `${index === 0 ? "M" : "L"}${x(index)} ${y(value)}`)
      .join(" ");
    parts.push(
      `<path data-series="${escapeHtml(series.id)}" clip-path="url(#${escapeHtml(clipId)})" d="${d}" fill="none" stroke="${series.color}" stroke-width="2"${series.dash ? ` stroke-dasharray="${series.dash}"` : ""}><title>${escapeHtml(series.label)}</title></path>`,
    );
    series.values.forEach((value, index) => {
      if (value > yMax) return;
      parts.push(
        `<circle cx="${x(index)}" cy="${y(value)}" r="2.5" fill="${series.color}"><title>${escapeHtml(`${series.label}, ${chart.xTicks[index] ?? ""}: ${value.toLocaleString("en-US")}`)}</title></circle>`,
      );
    });
  }
  parts.push(
    `<text class="axis" x="${MARGIN.left + plotWidth / 2}" y="${HEIGHT - 8}" text-anchor="middle">${escapeHtml(chart.xLabel)}</text>`,
    `<text class="axis" transform="translate(16 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(chart.yLabel)}</text>`,
  );
  const legend = chart.series
    .map(
      (series) =>
        `<li><svg width="28" height="10" aria-hidden="true"><line x1="0" x2="28" y1="5" y2="5" stroke="${series.color}" stroke-width="3"${series.dash ? ` stroke-dasharray="${series.dash}"` : ""}/></svg>${escapeHtml(series.label)}</li>`,
    )
    .join("");
  return `<figure class="chart" id="${escapeHtml(chart.id)}">
<figcaption>${escapeHtml(chart.title)}</figcaption>
<svg data-chart="line" data-series-count="${chart.series.length}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escapeHtml(chart.title)}" xmlns="http://www.w3.org/2000/svg">${parts.join("")}</svg>
<ul class="legend">${legend}</ul>${[...offScale.map((line) => `${line}.`), ...(chart.note ? [chart.note] : [])].map((line) => `\n<p class="note">${escapeHtml(line)}</p>`).join("")}
</figure>`;
}

export function renderBarChart(chart: BarChart): string {
  const width = 1000;
  const barHeight = 14;
  const gap = 4;
  const labelWidth = 360;
  const plotWidth = width - labelWidth - 190;
  const groupHeight = (group: BarGroup) => group.bars.length * (barHeight + gap) + 14;
  const height = 24 + chart.groups.reduce((sum, group) => sum + groupHeight(group), 0);
  const parts: string[] = [];
  let top = 16;
  for (const group of chart.groups) {
    parts.push(
      `<text class="bar-group" x="${labelWidth - 10}" y="${top + barHeight}" text-anchor="end">${escapeHtml(group.label)}</text>`,
    );
    for (const bar of group.bars) {
      const barWidth = round((plotWidth * Math.max(0, Math.min(bar.value, chart.max))) / chart.max);
      parts.push(
        `<rect class="bar-track" x="${labelWidth}" y="${top}" width="${plotWidth}" height="${barHeight}"/>`,
        `<rect data-series="${escapeHtml(bar.id)}" x="${labelWidth}" y="${top}" width="${barWidth}" height="${barHeight}" fill="${bar.color}"${bar.opacity === undefined ? "" : ` fill-opacity="${bar.opacity}"`}><title>${escapeHtml(`${group.label} — ${bar.label}: ${bar.value.toFixed(1)}${chart.unit}`)}</title></rect>`,
        `<text class="bar-value" x="${labelWidth + plotWidth + 10}" y="${top + barHeight - 2}">${escapeHtml(`${bar.value.toFixed(1)}${chart.unit} ${bar.label}`)}</text>`,
      );
      top += barHeight + gap;
    }
    top += 14;
  }
  return `<figure class="chart" id="${escapeHtml(chart.id)}">
<figcaption>${escapeHtml(chart.title)}</figcaption>
<svg data-chart="bars" data-group-count="${chart.groups.length}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(chart.title)}" xmlns="http://www.w3.org/2000/svg">${parts.join("")}</svg>
</figure>`;
}
