// Hand-written SVG line charts for `bench --out`: axes with ticks, a log-scale x axis
// (concurrency), linear or log-scale y, one polyline with point markers per series, and a
// legend. Plain SVG 1.1, no scripts, so the files display anywhere.

export interface Series {
  name: string;
  points: Array<[number, number]>;
}

export interface ChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  xLog?: boolean;
  yLog?: boolean;
  width?: number;
  height?: number;
}

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"];
const DASHES = ["", "6 4", "2 3", "8 3 2 3"];

export function escapeXml(text: string): string {
  return text.replace(
    /[<>&"']/g,
    (char) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[char]!,
  );
}

/** Round numbers for a linear axis from 0 (or the minimum) to at least `max`. */
export function linearTicks(min: number, max: number, target = 5): number[] {
  if (!(max > min)) return [min, min + 1];
  const rough = (max - min) / target;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((candidate) => candidate >= rough)!;
  const ticks: number[] = [];
  for (let value = Math.floor(min / step) * step; value < max + step * 0.999; value += step) {
    ticks.push(Number(value.toPrecision(12)));
  }
  return ticks;
}

/** Powers of ten (with 2 and 5 between them when the span is short) from below min to above max. */
export function logTicks(min: number, max: number): number[] {
  const low = Math.floor(Math.log10(min));
  const high = Math.ceil(Math.log10(max));
  const mantissas = high - low <= 2 ? [1, 2, 5] : [1];
  const candidates: number[] = [];
  for (let exponent = low; exponent <= high; exponent++) {
    for (const mantissa of mantissas) candidates.push(Number((mantissa * 10 ** exponent).toPrecision(12)));
  }
  const first = candidates.filter((value) => value <= min * 1.0001).pop() ?? candidates[0];
  const last = candidates.find((value) => value >= max / 1.0001) ?? candidates[candidates.length - 1];
  const ticks = candidates.filter((value) => value >= first && value <= last);
  return ticks.length >= 2 ? ticks : [10 ** low, 10 ** (low + 1)];
}

export function formatTick(value: number): string {
  if (value === 0) return "0";
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${Number((value / 1e6).toPrecision(3))}M`;
  if (abs >= 1e3) return `${Number((value / 1e3).toPrecision(3))}k`;
  if (abs < 0.01) return value.toExponential(0);
  return String(Number(value.toPrecision(3)));
}

export function lineChart(spec: ChartSpec): string {
  const width = spec.width ?? 720;
  const height = spec.height ?? 440;
  const margin = { left: 80, right: 190, top: 50, bottom: 60 };
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const points = spec.series.flatMap((series) => series.points).filter(([x, y]) =>
    Number.isFinite(x) && Number.isFinite(y) && (!spec.xLog || x > 0) && (!spec.yLog || y > 0)
  );
  const xs = points.map(([x]) => x);
  const ys = points.map(([, y]) => y);
  const xMin = xs.length ? Math.min(...xs) : 1;
  const xMax = xs.length ? Math.max(...xs) : 10;
  const yMax = ys.length ? Math.max(...ys) : 1;
  const yMin = ys.length ? Math.min(...ys) : 0;

  const xTicks = spec.xLog ? logTicks(xMin, Math.max(xMax, xMin * 10)) : linearTicks(Math.min(0, xMin), xMax);
  const yTicks = spec.yLog ? logTicks(yMin, Math.max(yMax, yMin * 10)) : linearTicks(0, yMax);
  const xLow = xTicks[0];
  const xHigh = xTicks[xTicks.length - 1];
  const yLow = yTicks[0];
  const yHigh = yTicks[yTicks.length - 1];
  const scale = (value: number, low: number, high: number, log: boolean | undefined) =>
    log ? (Math.log10(value) - Math.log10(low)) / (Math.log10(high) - Math.log10(low)) : (value - low) / (high - low);
  const px = (x: number) => margin.left + scale(x, xLow, xHigh, spec.xLog) * plotWidth;
  const py = (y: number) => margin.top + plotHeight - scale(y, yLow, yHigh, spec.yLog) * plotHeight;
  const fixed = (value: number) => value.toFixed(1);

  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
      `font-family="Helvetica, Arial, sans-serif" font-size="12">`,
  );
  parts.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);
  parts.push(
    `<text x="${width / 2 - margin.right / 2 + margin.left / 2}" y="28" text-anchor="middle" font-size="16" ` +
      `font-weight="bold">${escapeXml(spec.title)}</text>`,
  );
  // Grid and ticks.
  for (const tick of xTicks) {
    const x = fixed(px(tick));
    parts.push(`<line x1="${x}" y1="${margin.top}" x2="${x}" y2="${margin.top + plotHeight}" stroke="#e6e6e6"/>`);
    parts.push(
      `<line x1="${x}" y1="${margin.top + plotHeight}" x2="${x}" y2="${margin.top + plotHeight + 5}" stroke="#333"/>`,
    );
    parts.push(
      `<text x="${x}" y="${margin.top + plotHeight + 18}" text-anchor="middle">${escapeXml(formatTick(tick))}</text>`,
    );
  }
  for (const tick of yTicks) {
    const y = fixed(py(tick));
    parts.push(`<line x1="${margin.left}" y1="${y}" x2="${margin.left + plotWidth}" y2="${y}" stroke="#e6e6e6"/>`);
    parts.push(`<line x1="${margin.left - 5}" y1="${y}" x2="${margin.left}" y2="${y}" stroke="#333"/>`);
    parts.push(
      `<text x="${margin.left - 8}" y="${y}" text-anchor="end" dominant-baseline="middle">${
        escapeXml(formatTick(tick))
      }</text>`,
    );
  }
  // Axes.
  parts.push(
    `<line x1="${margin.left}" y1="${margin.top + plotHeight}" x2="${margin.left + plotWidth}" ` +
      `y2="${margin.top + plotHeight}" stroke="#333"/>`,
  );
  parts.push(
    `<line x1="${margin.left}" y1="${margin.top}" x2="${margin.left}" y2="${margin.top + plotHeight}" stroke="#333"/>`,
  );
  parts.push(
    `<text x="${margin.left + plotWidth / 2}" y="${height - 18}" text-anchor="middle">${
      escapeXml(spec.xLabel + (spec.xLog ? " (log scale)" : ""))
    }</text>`,
  );
  parts.push(
    `<text x="18" y="${margin.top + plotHeight / 2}" text-anchor="middle" ` +
      `transform="rotate(-90 18 ${margin.top + plotHeight / 2})">${
        escapeXml(spec.yLabel + (spec.yLog ? " (log scale)" : ""))
      }</text>`,
  );
  // Series.
  spec.series.forEach((series, i) => {
    const color = COLORS[i % COLORS.length];
    const dash = DASHES[Math.floor(i / 2) % DASHES.length];
    const usable = series.points.filter(([x, y]) =>
      Number.isFinite(x) && Number.isFinite(y) && (!spec.xLog || x > 0) && (!spec.yLog || y > 0)
    ).sort((a, b) => a[0] - b[0]);
    if (usable.length === 0) return;
    const coordinates = usable.map(([x, y]) => `${fixed(px(x))},${fixed(py(y))}`).join(" ");
    parts.push(
      `<polyline fill="none" stroke="${color}" stroke-width="2"${
        dash ? ` stroke-dasharray="${dash}"` : ""
      } points="${coordinates}"/>`,
    );
    for (const [x, y] of usable) {
      parts.push(`<circle cx="${fixed(px(x))}" cy="${fixed(py(y))}" r="3.5" fill="${color}"/>`);
    }
  });
  // Legend.
  const legendX = margin.left + plotWidth + 20;
  spec.series.forEach((series, i) => {
    const color = COLORS[i % COLORS.length];
    const dash = DASHES[Math.floor(i / 2) % DASHES.length];
    const y = margin.top + 10 + i * 22;
    parts.push(
      `<line x1="${legendX}" y1="${y}" x2="${legendX + 28}" y2="${y}" stroke="${color}" stroke-width="2"${
        dash ? ` stroke-dasharray="${dash}"` : ""
      }/>`,
    );
    parts.push(`<circle cx="${legendX + 14}" cy="${y}" r="3.5" fill="${color}"/>`);
    parts.push(`<text x="${legendX + 36}" y="${y}" dominant-baseline="middle">${escapeXml(series.name)}</text>`);
  });
  parts.push("</svg>");
  return parts.join("\n") + "\n";
}
