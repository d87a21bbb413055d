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

/**
 * Merges the closest pair of standing entries until `colours` stand. Each entry keeps its
 * nearest partner, so a merge rescans only the entries whose partner it changed: about n²
 * cost evaluations in all, where rescanning every pair per merge was n³.
 */
function mergeClosestPairs(entries: PaletteEntry[], colours: number): void {
  const count = entries.length;
  const partner = new Int32Array(count).fill(-1);
  const partnerCost = new Float64Array(count).fill(Infinity);
  const findPartner = (i: number): void => {
    const x = entries[i] as PaletteEntry;
    let best = Infinity;
    let bestJ = -1;
    for (let j = 0; j < count; j++) {
      if (j === i || (entries[j] as PaletteEntry).mergedInto !== -1) continue;
      const c = cost(x, entries[j] as PaletteEntry);
      if (c < best) {
        best = c;
        bestJ = j;
      }
    }
    partner[i] = bestJ;
    partnerCost[i] = best;
  };
  for (let i = 0; i < count; i++) findPartner(i);
  for (let standing = count; standing > colours; standing--) {
    let i = -1;
    for (let k = 0; k < count; k++) {
      if ((entries[k] as PaletteEntry).mergedInto === -1 && (i === -1 || (partnerCost[k] as number) < (partnerCost[i] as number))) i = k;
    }
    // The lower index absorbs the higher, as a scan over pairs in order would.
    const keep = Math.min(i, partner[i] as number);
    const drop = Math.max(i, partner[i] as number);
    const x = entries[keep] as PaletteEntry;
    const y = entries[drop] as PaletteEntry;
    const total = x.weight + y.weight;
    x.r = (x.r * x.weight + y.r * y.weight) / total;
    x.g = (x.g * x.weight + y.g * y.weight) / total;
    x.b = (x.b * x.weight + y.b * y.weight) / total;
    x.a = (x.a * x.weight + y.a * y.weight) / total;
    x.weight = total;
    y.mergedInto = keep;
    partnerCost[drop] = Infinity;
    findPartner(keep);
    for (let k = 0; k < count; k++) {
      if (k === keep || (entries[k] as PaletteEntry).mergedInto !== -1) continue;
      if (partner[k] === keep || partner[k] === drop) {
        findPartner(k);
      } else {
        const c = cost(entries[k] as PaletteEntry, x);
        if (c < (partnerCost[k] as number)) {
          partner[k] = keep;
          partnerCost[k] = c;
        }
      }
    }
  }
}

/** Maps every colour of an image with few distinct colours (≤ 256) onto at most `colours` colours. */
export function reducePalette(rgba: Buffer, colours: number): Buffer {
  const indexOf = new Map<number, number>();
  const entries: PaletteEntry[] = [];
  const pixelIndex = new Uint16Array(rgba.length / 4);
  let lastKey = -1;
  let lastIndex = 0;
  const source = pixelWords(rgba);
  for (let p = 0; p < pixelIndex.length; p++) {
    const key = source[p] as number;
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
  mergeClosestPairs(entries, colours);
  // Each source colour's final colour, as a pixel word.
  const finalWord = new Uint32Array(entries.length);
  const colour = Buffer.alloc(4);
  entries.forEach((start, index) => {
    let entry = start;
    while (entry.mergedInto !== -1) entry = entries[entry.mergedInto] as PaletteEntry;
    colour[0] = Math.round(entry.r);
    colour[1] = Math.round(entry.g);
    colour[2] = Math.round(entry.b);
    colour[3] = Math.round(entry.a);
    finalWord[index] = colour.readUInt32LE(0);
  });
  const out = Buffer.alloc(rgba.length);
  const target = pixelWords(out);
  for (let p = 0; p < pixelIndex.length; p++) target[p] = finalWord[pixelIndex[p] as number] as number;
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
