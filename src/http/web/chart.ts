// The dashboard's chart: conversions per day as SVG bars, drawn here on the server from
// numbers and dates only (no chart library: thirty rectangles and a few labels). Colours come
// from the stylesheet's classes, so the page's CSP needs no inline style.

const WIDTH = 640;
const HEIGHT = 200;
const LEFT = 32;
const BOTTOM = 24;
const TOP = 12;

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
const dayLabel = (ms: number) => new Date(ms).toISOString().slice(5, 10);

export function conversionsChart(days: { day: number; count: number }[]): string {
  const max = Math.max(1, ...days.map((d) => d.count));
  // A round top for the scale: 1, 2, 5, 10, 20, 50 …
  const top = [1, 2, 5].flatMap((m) => [1, 10, 100, 1000, 10000].map((p) => m * p)).sort((a, b) => a - b).find((n) => n >= max) ?? max;
  const plotWidth = WIDTH - LEFT - 4;
  const plotHeight = HEIGHT - BOTTOM - TOP;
  const slot = plotWidth / Math.max(1, days.length);
  const total = days.reduce((sum, d) => sum + d.count, 0);
  const first = days[0];
  const last = days.at(-1);
  const title = `Conversions per day over the last ${days.length} days: ${total} in all${
    first && last ? `, from ${new Date(first.day).toISOString().slice(0, 10)} to ${new Date(last.day).toISOString().slice(0, 10)}` : ''
  }`;
  const parts: string[] = [];
  parts.push(`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="chart-title" xmlns="http://www.w3.org/2000/svg">`);
  parts.push(`<title id="chart-title">${escapeXml(title)}</title>`);
  // Whole numbers only on the scale: a top of 1 or 5 gets no middle line.
  for (const value of Number.isInteger(top / 2) ? [0, top / 2, top] : [0, top]) {
    const y = TOP + plotHeight - (value / top) * plotHeight;
    parts.push(`<line class="chart-grid" x1="${LEFT}" x2="${WIDTH - 4}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}"/>`);
    parts.push(`<text class="chart-label" x="${LEFT - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end">${value}</text>`);
  }
  days.forEach((d, i) => {
    const height = (d.count / top) * plotHeight;
    const x = LEFT + i * slot + slot * 0.15;
    const y = TOP + plotHeight - height;
    parts.push(
      `<rect class="chart-bar" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${height.toFixed(1)}">` +
        `<title>${escapeXml(`${new Date(d.day).toISOString().slice(0, 10)}: ${d.count}`)}</title></rect>`,
    );
    if ((days.length - 1 - i) % 7 === 0) {
      // The last label ends at the last bar, so it stays inside the picture.
      const last = i === days.length - 1;
      parts.push(
        `<text class="chart-label" x="${(last ? x + slot * 0.7 : x + slot * 0.35).toFixed(1)}" y="${HEIGHT - 6}" text-anchor="${last ? 'end' : 'middle'}">${dayLabel(d.day)}</text>`,
      );
    }
  });
  parts.push('</svg>');
  return parts.join('');
}
