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
export function pixelWords(rgba: Buffer): Uint32Array {
  return new Uint32Array(rgba.buffer, rgba.byteOffset, rgba.length / 4);
}

/** Squared distance between two pixel words, alpha weighted as in reducePalette. */
export function colourDistance(x: number, y: number): number {
  const dr = (x & 255) - (y & 255);
  const dg = ((x >>> 8) & 255) - ((y >>> 8) & 255);
  const db = ((x >>> 16) & 255) - ((y >>> 16) & 255);
  const da = ((x >>> 24) - (y >>> 24)) * ALPHA_WEIGHT;
  return dr * dr + dg * dg + db * db + da * da;
}

/** The distinct RGBA values of an image with few colours (a quantised one), as pixel words. */
export function paletteOf(rgba: Buffer): Uint32Array {
  const seen = new Set<number>();
  let last = -1;
  // Indexed, not for…of: run once per image, the loop's iterator made a result object per pixel.
  const words = pixelWords(rgba);
  for (let p = 0; p < words.length; p++) {
    const word = words[p] as number;
    if (word === last) continue;
    seen.add(word);
    last = word;
  }
  return Uint32Array.from(seen);
}

/** Palette colours as separate channels, alpha already weighted. */
interface PaletteChannels {
  red: Int32Array;
  green: Int32Array;
  blue: Int32Array;
  alpha: Int32Array;
}

function splitChannels(palette: Uint32Array): PaletteChannels {
  const channels = {
    red: new Int32Array(palette.length),
    green: new Int32Array(palette.length),
    blue: new Int32Array(palette.length),
    alpha: new Int32Array(palette.length),
  };
  palette.forEach((word, i) => {
    channels.red[i] = word & 255;
    channels.green[i] = (word >>> 8) & 255;
    channels.blue[i] = (word >>> 16) & 255;
    channels.alpha[i] = (word >>> 24) * ALPHA_WEIGHT;
  });
  return channels;
}

/** Index of the nearest palette entry among `count` candidates listed from `from` (all entries when list is null). */
function nearestEntry(
  channels: PaletteChannels,
  word: number,
  list: number[] | null,
  from: number,
  count: number,
): number {
  const r = word & 255;
  const g = (word >>> 8) & 255;
  const b = (word >>> 16) & 255;
  const a = (word >>> 24) * ALPHA_WEIGHT;
  let best = Infinity;
  let bestIndex = 0;
  for (let k = 0; k < count; k++) {
    const i = list ? (list[from + k] as number) : k;
    const dr = r - (channels.red[i] as number);
    const dg = g - (channels.green[i] as number);
    const db = b - (channels.blue[i] as number);
    const da = a - (channels.alpha[i] as number);
    const distance = dr * dr + dg * dg + db * db + da * da;
    if (distance < best) {
      best = distance;
      bestIndex = i;
    }
  }
  return bestIndex;
}

/** Side of a colour cell, per channel. */
const CELL = 4;

/**
 * Appends the count, then the indices, of the entries that can be nearest to some colour of the
 * cell (the box of CELL³ colours from r0, g0, b0 at exactly this alpha): those whose distance
 * to the box is within the smallest distance any entry has to the box's farthest corner.
 */
function listCandidates(channels: PaletteChannels, r0: number, g0: number, b0: number, alpha: number, list: number[]): void {
  const size = channels.red.length;
  // Squared distance along one channel from the box to a value (near) and to its far side (far).
  let near = 0;
  let far = 0;
  const span = (value: number, low: number): void => {
    const high = low + CELL - 1;
    const outside = value < low ? low - value : value > high ? value - high : 0;
    const farthest = value - low > high - value ? value - low : high - value;
    near += outside * outside;
    far += farthest * farthest;
  };
  const nearOf = new Float64Array(size);
  let bound = Infinity;
  for (let i = 0; i < size; i++) {
    const da = alpha - (channels.alpha[i] as number);
    near = da * da;
    far = da * da;
    span(channels.red[i] as number, r0);
    span(channels.green[i] as number, g0);
    span(channels.blue[i] as number, b0);
    nearOf[i] = near;
    if (far < bound) bound = far;
  }
  const countAt = list.length;
  list.push(0);
  for (let i = 0; i < size; i++) {
    if ((nearOf[i] as number) <= bound) list.push(i);
  }
  list[countAt] = list.length - countAt - 1;
}

/**
 * Maps every pixel onto the nearest palette colour (RGB distance, alpha weighted as in
 * reducePalette), without dithering. Reuses a palette found on another size of the same image:
 * a second quantisation would cost more and pick nearly the same colours.
 * Exact, and fast on photos' 10⁵ distinct colours: each colour cell of 4×4×4 values lists once
 * the few entries that can be nearest to any colour in it, and a pixel searches only those.
 */
export function mapToPalette(rgba: Buffer, palette: Uint32Array): Buffer {
  if (palette.length === 0) throw new Error('mapToPalette: empty palette');
  const channels = splitChannels(palette);
  const out = Buffer.allocUnsafe(rgba.length);
  const source = pixelWords(rgba);
  const target = pixelWords(out);
  // Cells of transparent (alpha 0) and opaque (alpha 255) pixels; partly transparent pixels,
  // few and mostly on edges, search the whole palette.
  const listAt = new Int32Array(2 << 18).fill(-1);
  const lists: number[] = [];
  let lastWord = -1;
  let lastNearest = 0;
  for (let p = 0; p < source.length; p++) {
    const word = source[p] as number;
    if (word === lastWord) {
      target[p] = lastNearest;
      continue;
    }
    const alpha = word >>> 24;
    let index: number;
    if (alpha === 0 || alpha === 255) {
      const cell = (alpha === 255 ? 1 << 18 : 0) | ((word >>> 2) & 0x3f) | ((word >>> 4) & 0xfc0) | ((word >>> 6) & 0x3f000);
      let at = listAt[cell] as number;
      if (at === -1) {
        at = lists.length;
        listCandidates(channels, word & 0xfc, (word >>> 8) & 0xfc, (word >>> 16) & 0xfc, alpha * ALPHA_WEIGHT, lists);
        listAt[cell] = at;
      }
      index = nearestEntry(channels, word, lists, at + 1, lists[at] as number);
    } else {
      index = nearestEntry(channels, word, null, 0, palette.length);
    }
    const nearest = palette[index] as number;
    target[p] = nearest;
    lastWord = word;
    lastNearest = nearest;
  }
  return out;
}
