// Spot colours: `palette` (every fill one of the given colours) and `maxColors` (at most N
// fills, chosen for the picture). Distances are Euclidean in Oklab (Björn Ottosson, 2020), a
// perceptual space where equal distances look about equally different, through culori. The
// picture is first reduced to its own palette (analyse/palette.ts); each of those colours is
// then given a spot colour here, and every pixel takes its colour's spot colour.

import { converter } from 'culori';
import type { Rgb } from '../geometry.ts';
import type { TraceParams } from '../params.ts';

/** What the request asks of the fills' colours; undefined when it asks nothing. */
export interface SpotColourRequest {
  /** Every fill is one of these. */
  palette?: Rgb[];
  /** At most this many distinct fills. */
  maxColors?: number;
}

export function spotColourRequest(params: TraceParams): SpotColourRequest | undefined {
  if (!params.palette && params.maxColors === undefined) return undefined;
  return {
    ...(params.palette ? { palette: params.palette.map(parseHexColour) } : {}),
    ...(params.maxColors !== undefined ? { maxColors: params.maxColors } : {}),
  };
}

export function parseHexColour(hex: string): Rgb {
  const value = parseInt(hex.slice(1), 16);
  return { r: value >> 16, g: (value >> 8) & 0xff, b: value & 0xff };
}

type Lab = [number, number, number];

const toOklab = converter('oklab');

export function oklabOf({ r, g, b }: Rgb): Lab {
  const lab = toOklab({ mode: 'rgb', r: r / 255, g: g / 255, b: b / 255 });
  return [lab.l, lab.a, lab.b];
}

function distanceSquared(x: Lab, y: Lab): number {
  return (x[0] - y[0]) ** 2 + (x[1] - y[1]) ** 2 + (x[2] - y[2]) ** 2;
}

/** Index of the colour of `labs` nearest `lab` (the first of equals), among those `allowed` says. */
export function nearestIndex(lab: Lab, labs: readonly Lab[], allowed: (index: number) => boolean = () => true): number {
  let best = -1;
  let bestDistance = Infinity;
  labs.forEach((candidate, index) => {
    if (!allowed(index)) return;
    const distance = distanceSquared(lab, candidate);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = index;
    }
  });
  return best;
}

/** A colour of the picture's own palette and how many pixels have it. */
export interface PaletteEntry {
  color: Rgb;
  weight: number;
}

/** Each entry's spot colour: `colours[assignment[i]]` paints the pixels of entry i. */
export interface SpotColours {
  colours: Rgb[];
  assignment: Int32Array;
}

/**
 * Gives each colour of the picture a spot colour. With a palette: the nearest palette colour;
 * with `maxColors` as well, the least used palette colours are given up, their pixels going to
 * the nearest colour left, until at most that many are used. With `maxColors` alone: the
 * entries are merged by Ward's criterion in Oklab (the merge that adds the least squared error,
 * weighted by pixels) until that many groups stand; `representative` names each group's colour.
 */
export function assignSpotColours(
  entries: readonly PaletteEntry[],
  request: SpotColourRequest,
  representative: (members: number[]) => Rgb,
): SpotColours {
  // Blends (anti-aliasing between two colours) take no spot colour of their own: each goes with
  // the side it is nearer, so an edge stays an edge instead of growing an outline.
  const parent = mixtureParents(entries);
  const kept = entries.map((_, index) => index).filter((index) => parent[index] === -1);
  const keptEntries = kept.map((index) => entries[index] as PaletteEntry);
  const labs = keptEntries.map((entry) => oklabOf(entry.color));
  let keptAssignment: Int32Array;
  let colours: Rgb[];
  if (request.palette) {
    ({ colours, assignment: keptAssignment } = assignPalette(keptEntries, labs, request.palette, request.maxColors));
  } else {
    // Specks (colours on almost no pixels) do not spend a colour of their own either: they join
    // the group nearest them afterwards.
    const total = keptEntries.reduce((sum, entry) => sum + entry.weight, 0);
    const major = keptEntries.map((_, k) => k).filter((k) => (keptEntries[k] as PaletteEntry).weight >= MINOR_SHARE * total);
    const chosen = major.length > 0 ? major : keptEntries.map((_, k) => k);
    const groups = wardGroups(
      chosen.map((k) => keptEntries[k] as PaletteEntry),
      chosen.map((k) => labs[k] as Lab),
      request.maxColors ?? chosen.length,
    ).map((group) => group.map((i) => chosen[i] as number));
    keptAssignment = new Int32Array(keptEntries.length).fill(-1);
    groups.forEach((group, g) => group.forEach((k) => (keptAssignment[k] = g)));
    const groupLabs = groups.map((group) => {
      const weight = group.reduce((sum, k) => sum + (keptEntries[k] as PaletteEntry).weight, 0);
      return [0, 1, 2].map((c) => group.reduce((sum, k) => sum + ((labs[k] as Lab)[c] as number) * (keptEntries[k] as PaletteEntry).weight, 0) / weight) as Lab;
    });
    keptAssignment.forEach((group, k) => {
      if (group < 0) keptAssignment[k] = nearestIndex(labs[k] as Lab, groupLabs);
    });
    // The groups' members, blends and specks included, name each group's colour.
    const members: number[][] = groups.map(() => []);
    const groupOfEntry = new Int32Array(entries.length);
    kept.forEach((entry, k) => (groupOfEntry[entry] = keptAssignment[k] as number));
    entries.forEach((_, entry) => {
      const group = groupOfEntry[rootOf(parent, entry)] as number;
      (members[group] as number[]).push(entry);
    });
    colours = members.map((group) => representative(group));
  }
  const slot = new Int32Array(entries.length);
  kept.forEach((entry, k) => (slot[entry] = keptAssignment[k] as number));
  const assignment = Int32Array.from(entries, (_, entry) => slot[rootOf(parent, entry)] as number);
  return { colours, assignment };
}

function rootOf(parent: Int32Array, entry: number): number {
  let at = entry;
  while ((parent[at] as number) >= 0) at = parent[at] as number;
  return at;
}

/** A colour on fewer than this share of the pixels is a speck, not a colour of the picture. */
const MINOR_SHARE = 1e-4;
/**
 * Groups closer than this in Oklab (about twice a just-noticeable difference) are one colour,
 * however many colours `maxColors` allows: a three-colour logo asked for eight gets three.
 */
const DISTINCT_COLOURS = 0.04;

/** A blend lies within this (sRGB levels) of the line between two colours ... */
const BLEND_DISTANCE = 12;
/** ... between 5 % and 95 % of the way ... */
const BLEND_RANGE = [0.05, 0.95] as const;
/** ... and covers at most this share of the smaller of the two. */
const BLEND_WEIGHT = 0.5;
/** Blends are looked for between the heaviest colours only. */
const BLEND_SIDES = 32;

/**
 * For each entry, the heavier entry it is a blend towards, or -1: anti-aliasing mixes two
 * colours in sRGB (as most renderers blend), so its colours lie on the line between them, and
 * cover little beside them. A photograph's gradients hold as much of each tone, and stay.
 */
export function mixtureParents(entries: readonly PaletteEntry[]): Int32Array {
  const parent = new Int32Array(entries.length).fill(-1);
  const order = entries.map((_, index) => index).sort((a, b) => (entries[b] as PaletteEntry).weight - (entries[a] as PaletteEntry).weight);
  const sides: number[] = [];
  for (const index of order) {
    const entry = entries[index] as PaletteEntry;
    let best = -1;
    let bestDistance = BLEND_DISTANCE;
    for (let i = 0; i < sides.length; i++) {
      const a = entries[sides[i] as number] as PaletteEntry;
      for (let j = i + 1; j < sides.length; j++) {
        const b = entries[sides[j] as number] as PaletteEntry;
        if (entry.weight > BLEND_WEIGHT * Math.min(a.weight, b.weight)) continue;
        const d = [b.color.r - a.color.r, b.color.g - a.color.g, b.color.b - a.color.b];
        const e = [entry.color.r - a.color.r, entry.color.g - a.color.g, entry.color.b - a.color.b];
        const length = (d[0] as number) ** 2 + (d[1] as number) ** 2 + (d[2] as number) ** 2;
        if (length === 0) continue;
        const t = ((d[0] as number) * (e[0] as number) + (d[1] as number) * (e[1] as number) + (d[2] as number) * (e[2] as number)) / length;
        if (t < BLEND_RANGE[0] || t > BLEND_RANGE[1]) continue;
        const off = Math.hypot((e[0] as number) - t * (d[0] as number), (e[1] as number) - t * (d[1] as number), (e[2] as number) - t * (d[2] as number));
        if (off < bestDistance) {
          bestDistance = off;
          best = t < 0.5 ? (sides[i] as number) : (sides[j] as number);
        }
      }
    }
    if (best >= 0) parent[index] = best;
    else if (sides.length < BLEND_SIDES) sides.push(index);
  }
  return parent;
}

function assignPalette(entries: readonly PaletteEntry[], labs: Lab[], palette: Rgb[], maxColors: number | undefined): SpotColours {
  const paletteLabs = palette.map(oklabOf);
  const used = new Array<boolean>(palette.length).fill(true);
  const assign = () => labs.map((lab) => nearestIndex(lab, paletteLabs, (index) => used[index] as boolean));
  let assignment = assign();
  const limit = maxColors ?? palette.length;
  for (;;) {
    const weights = new Float64Array(palette.length);
    assignment.forEach((colour, entry) => (weights[colour] = (weights[colour] as number) + (entries[entry] as PaletteEntry).weight));
    const inUse = palette.map((_, index) => index).filter((index) => (weights[index] as number) > 0);
    if (inUse.length <= limit) break;
    // The least used colour gives its pixels up; colours no pixel takes may not take them either.
    let least = inUse[0] as number;
    for (const index of inUse) if ((weights[index] as number) < (weights[least] as number)) least = index;
    used[least] = false;
    for (let index = 0; index < palette.length; index++) if ((weights[index] as number) === 0) used[index] = false;
    assignment = assign();
  }
  return { colours: palette, assignment: Int32Array.from(assignment) };
}

interface Cluster {
  lab: Lab;
  weight: number;
  members: number[];
}

function wardCost(x: Cluster, y: Cluster): number {
  return ((x.weight * y.weight) / (x.weight + y.weight)) * distanceSquared(x.lab, y.lab);
}

/** Entries merged by Ward's criterion until `count` groups stand; each group lists its entries. */
function wardGroups(entries: readonly PaletteEntry[], labs: Lab[], count: number): number[][] {
  const clusters: (Cluster | null)[] = entries.map((entry, index) => ({ lab: labs[index] as Lab, weight: Math.max(entry.weight, 1e-9), members: [index] }));
  let standing = clusters.length;
  // Each cluster's cheapest partner, refreshed only where a merge changed it: n² costs in all.
  const partner = new Int32Array(clusters.length).fill(-1);
  const partnerCost = new Float64Array(clusters.length).fill(Infinity);
  const findPartner = (i: number) => {
    const x = clusters[i];
    partner[i] = -1;
    partnerCost[i] = Infinity;
    if (!x) return;
    clusters.forEach((y, j) => {
      if (!y || j === i) return;
      const cost = wardCost(x, y);
      if (cost < (partnerCost[i] as number)) {
        partnerCost[i] = cost;
        partner[i] = j;
      }
    });
  };
  for (let i = 0; i < clusters.length; i++) findPartner(i);
  const closestPair = (): [number, number] | undefined => {
    let best: [number, number] | undefined;
    let bestDistance = DISTINCT_COLOURS * DISTINCT_COLOURS;
    for (let a = 0; a < clusters.length; a++) {
      for (let b = a + 1; b < clusters.length; b++) {
        const x = clusters[a];
        const y = clusters[b];
        if (!x || !y) continue;
        const d = distanceSquared(x.lab, y.lab);
        if (d < bestDistance) {
          bestDistance = d;
          best = [a, b];
        }
      }
    }
    return best;
  };
  for (;;) {
    let i: number;
    let j: number;
    if (standing > Math.max(1, count)) {
      i = -1;
      for (let k = 0; k < clusters.length; k++) if (clusters[k] && (i < 0 || (partnerCost[k] as number) < (partnerCost[i] as number))) i = k;
      j = partner[i] as number;
    } else {
      // Within the count: only colours too close to tell apart still merge.
      const pair = standing > 1 ? closestPair() : undefined;
      if (!pair) break;
      [i, j] = pair;
    }
    const keep = Math.min(i, j);
    const drop = Math.max(i, j);
    const x = clusters[keep] as Cluster;
    const y = clusters[drop] as Cluster;
    const weight = x.weight + y.weight;
    x.lab = [0, 1, 2].map((c) => ((x.lab[c] as number) * x.weight + (y.lab[c] as number) * y.weight) / weight) as Lab;
    x.weight = weight;
    x.members.push(...y.members);
    clusters[drop] = null;
    standing--;
    for (let k = 0; k < clusters.length; k++) {
      if (!clusters[k]) continue;
      if (k === keep || partner[k] === keep || partner[k] === drop) findPartner(k);
      else {
        const cost = wardCost(clusters[k] as Cluster, x);
        if (cost < (partnerCost[k] as number)) {
          partnerCost[k] = cost;
          partner[k] = keep;
        }
      }
    }
  }
  return clusters.filter((cluster): cluster is Cluster => cluster !== null).map((cluster) => cluster.members);
}

/** The spot colour nearest a colour (exactly equal first), as an index of `colours`. */
export function nearestSpotColour(colour: Rgb, colours: readonly Rgb[], labs: readonly Lab[] = colours.map(oklabOf)): number {
  const exact = colours.findIndex((c) => c.r === colour.r && c.g === colour.g && c.b === colour.b);
  return exact >= 0 ? exact : nearestIndex(oklabOf(colour), labs);
}
