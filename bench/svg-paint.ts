// What an SVG paints with, read from its text: fills given as attributes (fill="…") or in a
// style (fill:…), as the service, VTracer and potrace write them.

const FILL_VALUE = /(?:\sfill\s*=\s*["']([^"']*)["']|[;{"'\s]fill\s*:\s*([^;}"']+))/g;
const GRADIENT_ID = /<(?:linear|radial)Gradient\b[^>]*?\sid\s*=\s*["']([^"']+)["']/g;

/** Every fill value of the document, normalised (colours in lower case, #abc as #aabbcc); `none` left out. */
function fillValues(svg: string): string[] {
  const values: string[] = [];
  for (const match of svg.matchAll(FILL_VALUE)) {
    const written = (match[1] ?? match[2] ?? '').trim().replace(/\s+/g, '');
    // Colours compare without case; url(#id) keeps it, since ids are case-sensitive.
    const value = written.startsWith('url(') ? written : written.toLowerCase();
    if (!value || value === 'none') continue;
    const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/.exec(value);
    values.push(short ? `#${short[1]}${short[1]}${short[2]}${short[2]}${short[3]}${short[3]}` : value);
  }
  return values;
}

/** Distinct fills, background included: each colour once, each gradient referenced once. */
export function countFillColours(svg: string): number {
  return new Set(fillValues(svg)).size;
}

/** `<linearGradient>` and `<radialGradient>` elements that some fill references (url(#id)). */
export function countGradientFills(svg: string): number {
  const gradients = new Set([...svg.matchAll(GRADIENT_ID)].map((match) => match[1] as string));
  const referenced = new Set<string>();
  for (const value of fillValues(svg)) {
    const id = /^url\(["']?#([^"')]+)["']?\)$/.exec(value)?.[1];
    if (id && gradients.has(id)) referenced.add(id);
  }
  return referenced.size;
}
