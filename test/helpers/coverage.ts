// An independent reading of SVG path geometry for area checks: each <path> parsed (M, L, H, V,
// C, Z, absolute or relative), cubics flattened, and filled by the nonzero rule at sample points
// (a grid of `samples`² points per pixel). Written for the tests, sharing nothing with the engine.

export interface SvgPathElement {
  d: string;
  fill: string | undefined;
}

export function pathElements(svg: string): SvgPathElement[] {
  return [...svg.matchAll(/<path\b([^>]*?)\/?>/g)].map((match) => {
    const attributes = match[1] ?? '';
    return { d: /\sd="([^"]*)"/.exec(attributes)?.[1] ?? '', fill: /\sfill="([^"]*)"/.exec(attributes)?.[1] };
  });
}

/** Subpaths as polygons (x, y pairs), curves flattened into 16 pieces. */
export function polygonsOf(d: string): number[][] {
  return subpathsOf(d, 3);
}

/** Subpaths of at least `minPoints` points (x, y pairs), curves flattened into 16 pieces: open lines too, with 2. */
export function subpathsOf(d: string, minPoints = 2): number[][] {
  const polygons: number[][] = [];
  const tokens = d.match(/[a-zA-Z]|[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/gi) ?? [];
  let current: number[] = [];
  let x = 0;
  let y = 0;
  let startX = 0;
  let startY = 0;
  let command = '';
  let at = 0;
  const next = () => Number(tokens[at++]);
  const finish = () => {
    if (current.length >= 2 * minPoints) polygons.push(current);
    current = [];
  };
  while (at < tokens.length) {
    if (/^[a-zA-Z]$/.test(tokens[at] as string)) command = tokens[at++] as string;
    const relative = command === command.toLowerCase();
    switch (command.toLowerCase()) {
      case 'z':
        finish();
        x = startX;
        y = startY;
        break;
      case 'm': {
        finish();
        const nx = next();
        const ny = next();
        x = relative ? x + nx : nx;
        y = relative ? y + ny : ny;
        startX = x;
        startY = y;
        current = [x, y];
        command = relative ? 'l' : 'L';
        break;
      }
      case 'l': {
        const nx = next();
        const ny = next();
        x = relative ? x + nx : nx;
        y = relative ? y + ny : ny;
        current.push(x, y);
        break;
      }
      case 'h': {
        const nx = next();
        x = relative ? x + nx : nx;
        current.push(x, y);
        break;
      }
      case 'v': {
        const ny = next();
        y = relative ? y + ny : ny;
        current.push(x, y);
        break;
      }
      case 'c': {
        const values = [next(), next(), next(), next(), next(), next()];
        const ox = relative ? x : 0;
        const oy = relative ? y : 0;
        const [x1, y1, x2, y2, x3, y3] = values.map((value, index) => value + (index % 2 === 0 ? ox : oy)) as [number, number, number, number, number, number];
        for (let step = 1; step <= 16; step++) {
          const t = step / 16;
          const u = 1 - t;
          current.push(u * u * u * x + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t * t * t * x3, u * u * u * y + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t * t * t * y3);
        }
        x = x3;
        y = y3;
        break;
      }
      default:
        throw new Error(`path command ${command} not read by this helper`);
    }
  }
  finish();
  return polygons;
}

/** Which sample points (row-major, `samples` per pixel along each axis) a path covers, by the nonzero rule. */
export function coverageOf(polygons: number[][], width: number, height: number, samples: number): Uint8Array {
  const columns = width * samples;
  const rows = height * samples;
  const mask = new Uint8Array(columns * rows);
  for (let row = 0; row < rows; row++) {
    const sampleY = (row + 0.5) / samples;
    const crossings: [number, number][] = [];
    for (const polygon of polygons) {
      const n = polygon.length / 2;
      for (let k = 0; k < n; k++) {
        const ax = polygon[2 * k] as number;
        const ay = polygon[2 * k + 1] as number;
        const bx = polygon[2 * ((k + 1) % n)] as number;
        const by = polygon[2 * ((k + 1) % n) + 1] as number;
        if (ay <= sampleY !== by <= sampleY) crossings.push([ax + ((sampleY - ay) / (by - ay)) * (bx - ax), by > ay ? 1 : -1]);
      }
    }
    crossings.sort((a, b) => a[0] - b[0]);
    let winding = 0;
    for (let k = 0; k < crossings.length; k++) {
      const before = winding;
      winding += (crossings[k] as [number, number])[1];
      if (before === 0 || k === 0) continue;
      const from = Math.max(0, Math.ceil((crossings[k - 1] as [number, number])[0] * samples - 0.5));
      const to = Math.min(columns, Math.ceil((crossings[k] as [number, number])[0] * samples - 0.5));
      for (let column = from; column < to; column++) mask[row * columns + column] = 1;
    }
  }
  return mask;
}

/** Shares of the image's sample points covered by two paths or more, and by none. */
export function overlapAndGaps(svg: string, width: number, height: number, samples = 2): { overlap: number; uncovered: number } {
  const counts = new Uint16Array(width * samples * height * samples);
  for (const { d } of pathElements(svg)) {
    const mask = coverageOf(polygonsOf(d), width, height, samples);
    for (let i = 0; i < mask.length; i++) counts[i] = (counts[i] as number) + (mask[i] as number);
  }
  let overlap = 0;
  let uncovered = 0;
  for (const count of counts) {
    if (count >= 2) overlap++;
    if (count === 0) uncovered++;
  }
  return { overlap: overlap / counts.length, uncovered: uncovered / counts.length };
}

/** Subpaths of an SVG's paths that enclose something (three points or more). */
export function countSubpaths(svg: string): number {
  return pathElements(svg).reduce((total, { d }) => total + polygonsOf(d).length, 0);
}

/**
 * The colour a fill shows on average, as `#rrggbb`: a colour as it is, a gradient (`url(#id)`,
 * looked up in the document) the mean of its stops weighted by the span each pair covers.
 */
export function averageFill(svg: string, fill: string): string {
  const reference = /^url\(#([^)]+)\)$/.exec(fill);
  if (!reference) return fill.toLowerCase();
  const gradient = new RegExp(`<(linear|radial)Gradient id="${reference[1]}"[^>]*>(.*?)</\\1Gradient>`).exec(svg);
  if (!gradient) throw new Error(`no gradient ${reference[1]} in the document`);
  const stops = [...(gradient[2] ?? '').matchAll(/<stop offset="([\d.]+)" stop-color="#([0-9a-f]{6})"/g)].map((match) => ({
    offset: Number(match[1]),
    rgb: [0, 2, 4].map((at) => parseInt((match[2] as string).slice(at, at + 2), 16)),
  }));
  const sums = [0, 0, 0];
  let total = 0;
  for (let i = 0; i + 1 < stops.length; i++) {
    const a = stops[i] as { offset: number; rgb: number[] };
    const b = stops[i + 1] as { offset: number; rgb: number[] };
    const span = Math.max(0, b.offset - a.offset);
    for (let c = 0; c < 3; c++) sums[c] = (sums[c] as number) + (((a.rgb[c] as number) + (b.rgb[c] as number)) / 2) * span;
    total += span;
  }
  const mean = total > 0 ? sums.map((sum) => sum / total) : ((stops[0]?.rgb ?? [0, 0, 0]) as number[]);
  return `#${mean.map((value) => Math.round(value).toString(16).padStart(2, '0')).join('')}`;
}
