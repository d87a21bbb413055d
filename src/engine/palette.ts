// Palette reduction. libimagequant (through sharp) picks good palettes but, through sharp,
// only honours sizes up to 16 exactly (beyond that it writes 8-bit PNGs of up to 256 colours);
// larger palettes are reduced from its 256 colours by merging the closest pair (Ward's criterion).

interface PaletteEntry {
  r: number;
  g: number;
  b: number;
  a: number;
  weight: number;
  /** Index of the entry it was merged into, or -1 while it stands. */
  mergedInto: number;
}

/** Alpha counts this many times a colour channel: opaque and transparent never merge. */
const ALPHA_WEIGHT = 4;

function cost(x: PaletteEntry, y: PaletteEntry): number {
  const dr = x.r - y.r;
  const dg = x.g - y.g;
  const db = x.b - y.b;
  const da = (x.a - y.a) * ALPHA_WEIGHT;
  return ((x.weight * y.weight) / (x.weight + y.weight)) * (dr * dr + dg * dg + db * db + da * da);
}

/** Maps every colour of an image with few distinct colours (≤ 256) onto at most `colours` colours. */
export function reducePalette(rgba: Buffer, colours: number): Buffer {
  const indexOf = new Map<number, number>();
  const entries: PaletteEntry[] = [];
  const pixelIndex = new Uint16Array(rgba.length / 4);
  let lastKey = -1;
  let lastIndex = 0;
  for (let p = 0; p < pixelIndex.length; p++) {
    const key = rgba.readUInt32LE(p * 4);
    // Neighbouring pixels mostly share a colour: skip the lookup.
    if (key === lastKey) {
      (entries[lastIndex] as PaletteEntry).weight++;
      pixelIndex[p] = lastIndex;
      continue;
    }
    let index = indexOf.get(key);
    if (index === undefined) {
      index = entries.length;
      if (index >= 65_535) throw new Error('reducePalette: too many colours');
      indexOf.set(key, index);
      const o = p * 4;
      entries.push({ r: rgba[o] as number, g: rgba[o + 1] as number, b: rgba[o + 2] as number, a: rgba[o + 3] as number, weight: 0, mergedInto: -1 });
    }
    (entries[index] as PaletteEntry).weight++;
    pixelIndex[p] = index;
    lastKey = key;
    lastIndex = index;
  }
  let standing = entries.length;
  while (standing > colours) {
    let best = Infinity;
    let bestI = -1;
    let bestJ = -1;
    for (let i = 0; i < entries.length; i++) {
      const x = entries[i] as PaletteEntry;
      if (x.mergedInto !== -1) continue;
      for (let j = i + 1; j < entries.length; j++) {
        const y = entries[j] as PaletteEntry;
        if (y.mergedInto !== -1) continue;
        const c = cost(x, y);
        if (c < best) {
          best = c;
          bestI = i;
          bestJ = j;
        }
      }
    }
    const x = entries[bestI] as PaletteEntry;
    const y = entries[bestJ] as PaletteEntry;
    const total = x.weight + y.weight;
    x.r = (x.r * x.weight + y.r * y.weight) / total;
    x.g = (x.g * x.weight + y.g * y.weight) / total;
    x.b = (x.b * x.weight + y.b * y.weight) / total;
    x.a = (x.a * x.weight + y.a * y.weight) / total;
    x.weight = total;
    y.mergedInto = bestI;
    standing--;
  }
  const finalOf = (index: number): PaletteEntry => {
    let entry = entries[index] as PaletteEntry;
    while (entry.mergedInto !== -1) entry = entries[entry.mergedInto] as PaletteEntry;
    return entry;
  };
  const out = Buffer.alloc(rgba.length);
  for (let p = 0; p < pixelIndex.length; p++) {
    const entry = finalOf(pixelIndex[p] as number);
    const o = p * 4;
    out[o] = Math.round(entry.r);
    out[o + 1] = Math.round(entry.g);
    out[o + 2] = Math.round(entry.b);
    out[o + 3] = Math.round(entry.a);
  }
  return out;
}

/** Pixels as one little-endian RGBA word each (r in the low byte). */
function pixelWords(rgba: Buffer): Uint32Array {
  return new Uint32Array(rgba.buffer, rgba.byteOffset, rgba.length / 4);
}

/** The distinct RGBA values of an image with few colours (a quantised one), as pixel words. */
export function paletteOf(rgba: Buffer): Uint32Array {
  const seen = new Set<number>();
  let last = -1;
  for (const word of pixelWords(rgba)) {
    if (word === last) continue;
    seen.add(word);
    last = word;
  }
  return Uint32Array.from(seen);
}

/**
 * Maps every pixel onto the nearest palette colour (RGB distance, alpha weighted as in
 * reducePalette), without dithering. Reuses a palette found on another size of the same image:
 * a second quantisation would cost more and pick nearly the same colours.
 */
export function mapToPalette(rgba: Buffer, palette: Uint32Array): Buffer {
  if (palette.length === 0) throw new Error('mapToPalette: empty palette');
  const size = palette.length;
  const red = new Int32Array(size);
  const green = new Int32Array(size);
  const blue = new Int32Array(size);
  const alpha = new Int32Array(size);
  for (let i = 0; i < size; i++) {
    const word = palette[i] as number;
    red[i] = word & 255;
    green[i] = (word >>> 8) & 255;
    blue[i] = (word >>> 16) & 255;
    alpha[i] = (word >>> 24) * ALPHA_WEIGHT;
  }
  const out = Buffer.allocUnsafe(rgba.length);
  const source = pixelWords(rgba);
  const target = pixelWords(out);
  // Nearest entry per colour cell: 6 bits per colour channel and 2 of alpha, a tenth of the
  // distinct colours of a photo. Searched once per cell, for the first pixel that falls in it.
  const nearestInCell = new Int32Array(1 << 20).fill(-1);
  let lastWord = -1;
  let lastNearest = 0;
  for (let p = 0; p < source.length; p++) {
    const word = source[p] as number;
    if (word === lastWord) {
      target[p] = lastNearest;
      continue;
    }
    const cell = ((word >>> 2) & 0x3f) | ((word >>> 4) & 0xfc0) | ((word >>> 6) & 0x3f000) | ((word >>> 12) & 0xc0000);
    let index = nearestInCell[cell] as number;
    if (index === -1) {
      const r = word & 255;
      const g = (word >>> 8) & 255;
      const b = (word >>> 16) & 255;
      const a = (word >>> 24) * ALPHA_WEIGHT;
      let best = Infinity;
      let bestIndex = 0;
      for (let i = 0; i < size; i++) {
        const dr = r - (red[i] as number);
        const dg = g - (green[i] as number);
        const db = b - (blue[i] as number);
        const da = a - (alpha[i] as number);
        const distance = dr * dr + dg * dg + db * db + da * da;
        if (distance < best) {
          best = distance;
          bestIndex = i;
        }
      }
      index = bestIndex;
      nearestInCell[cell] = index;
    }
    const nearest = palette[index] as number;
    target[p] = nearest;
    lastWord = word;
    lastNearest = nearest;
  }
  return out;
}
