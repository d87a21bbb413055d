// Which other ways of tracing an image the self-check tries, for each signature it found.
// The better result by fidelity is kept (convert.ts). Kinds are changed only under `mode: auto`,
// and the curve mode only under `curveMode: auto`: what a caller chose is kept.

import type { DecodedImage } from '../analyse/decode.ts';
import { alphaCarriesPicture } from '../paint/alpha-bands.ts';
import { hasPixelGrid, type ImageKind, type ImageStats } from '../analyse/classify.ts';
import { workingPixelsFor } from '../analyse/prepare.ts';
import type { TraceParams } from '../params.ts';
import type { ResolvedCurveMode } from '../trace/vtracer.ts';
import type { Signature } from './check.ts';

export interface TracePlan {
  kind: ImageKind;
  /** Working size in pixels, when not the kind's own (WORKING_PIXELS). */
  workingPixels?: number;
  curveMode?: ResolvedCurveMode;
  /**
   * `palette`: artwork traced whole from its palette even where its regions would be traced
   * (convert.ts). `alpha-bands`: light drawn in alpha traced band by band (paint/alpha-bands.ts).
   */
  path?: 'palette' | 'alpha-bands';
  /**
   * The signature that asked for this plan, the classifier's doubt, or a low score (plainPlan):
   * `plain` is the tracer alone at its command-line defaults (trace/vtracer.ts, plainTracerConfig),
   * the floor the engine's own paths are measured against. `soft-edges` marks the version of a
   * trace with its soft edges flat, checked beside it (convert.ts). `low-score`: the same kind on
   * a finer grid, or ink's picture traced in tones, for a result scoring under PLAIN_BELOW
   * (finerPlan, tonePlan). `palette`: artwork traced from its palette, its regions' trace
   * scoring under PALETTE_BELOW (palettePlan); `detail`: the same, its most detailed crop at the
   * image's own scale scoring DETAIL_GAP under the whole. `inks`: ink traced in several inks,
   * traced again as artwork (inksPlan).
   */
  reason?: Signature | 'doubt' | 'plain' | 'soft-edges' | 'low-score' | 'palette' | 'detail' | 'inks';
  /** Expected time against the first attempt's, to judge whether it fits the time left. */
  costFactor?: number;
}

/** A retrace starts only this early in a conversion, and only if it is expected to end by RETRACE_END_MS. */
export const RETRACE_START_BEFORE_MS = 5_000;
const RETRACE_END_MS = 9_000;

/**
 * Whether `plan` may start `elapsedMs` into a conversion whose first attempt took `firstMs`: early
 * enough, and expected (by the first attempt's time and the plan's costFactor) to end by
 * RETRACE_END_MS, so that no conversion runs long for a second opinion. Both times are work, as
 * check/work-clock.ts counts it: on a busy machine the same retraces start as on a quiet one.
 */
export function retraceFitsInTime(plan: TracePlan, elapsedMs: number, firstMs: number): boolean {
  return elapsedMs <= RETRACE_START_BEFORE_MS && elapsedMs + firstMs * (plan.costFactor ?? 1) <= RETRACE_END_MS;
}

/** Alpha bands' time against one trace: up to six traces, of areas mostly smaller than the image. */
const ALPHA_BANDS_COST = 3;

/** A finer working size: this many times the kind's pixels (and at most the image's own). */
const FINER = 3;

/** Other kinds worth trying, most likely first, when the first kind's result is destroyed. */
const OTHER_KINDS: Record<ImageKind, readonly ImageKind[]> = {
  sketch: ['logo', 'photo'],
  logo: ['photo'],
  photo: ['logo'],
  pixelart: ['logo'],
};

export function retracePlans(signatures: readonly Signature[], first: TracePlan, stats: ImageStats, params: TraceParams, decoded: DecodedImage): TracePlan[] {
  const kindIsFree = params.mode === 'auto';
  const plans: TracePlan[] = [];
  const add = (plan: TracePlan) => {
    if (plan.kind !== first.kind && !kindIsFree) return;
    const same = plans.some((p) => p.kind === plan.kind && p.workingPixels === plan.workingPixels && p.curveMode === plan.curveMode && p.path === plan.path);
    if (!same && !(plan.kind === first.kind && plan.workingPixels === first.workingPixels && plan.curveMode === first.curveMode && plan.path === first.path)) plans.push(plan);
  };
  const finer = (reason: Signature): TracePlan | undefined => finerGrid(first, decoded.originalWidth * decoded.originalHeight, reason);
  for (const signature of signatures) {
    switch (signature) {
      case 'blobs':
        if (hasPixelGrid(stats, decoded)) add({ kind: 'pixelart', reason: signature, costFactor: 0.5 });
        break;
      case 'squares':
        // Pixel-exact outlines on too coarse a grid: artwork traced as a photograph (its own outlines), other kinds in polygons.
        if (params.curveMode === 'auto') add(first.kind === 'logo' ? { kind: 'photo', reason: signature } : { kind: first.kind, curveMode: 'polygon', reason: signature });
        break;
      case 'coverage':
      case 'faint':
        // Light drawn in alpha: its alpha bands traced apart come first, in the first kind (ink, which has no tones, as a photograph).
        if (alphaCarriesPicture(decoded)) add({ kind: first.kind === 'sketch' ? 'photo' : first.kind, path: 'alpha-bands', reason: signature, costFactor: ALPHA_BANDS_COST });
        for (const kind of OTHER_KINDS[first.kind]) add({ kind, reason: signature });
        break;
      case 'colour':
      case 'tones':
        // Ink painted over colour or flat greys: the picture traced as artwork.
        add({ kind: 'logo', reason: signature });
        break;
      case 'region': {
        const plan = finer(signature);
        if (plan) add(plan);
        for (const kind of OTHER_KINDS[first.kind]) add({ kind, reason: signature });
        break;
      }
    }
  }
  return plans;
}

/**
 * The engine must never answer worse than the tracer it is built on. A result scoring under this
 * has lost much of the picture (faithful results score 0.77 and more on every kind but a dense
 * etching, 0.59) and is held against the tracer's own trace at its defaults. Higher, the plain
 * trace wins on the score only by keeping what the engine flattens on purpose (a photographed
 * page's paper tone, where a person wants the handwriting clean), so it is not tried.
 */
export const PLAIN_BELOW = 0.7;
/** The plain trace, when a result asks for the comparison; only where the caller left the kind and curves to the engine. */
export function plainPlan(first: TracePlan, fidelity: number, params: TraceParams): TracePlan | undefined {
  if (params.mode !== 'auto' || params.curveMode !== 'auto' || fidelity >= PLAIN_BELOW) return undefined;
  return { kind: first.kind, reason: 'plain', costFactor: 1 };
}

/**
 * A result scoring under PLAIN_BELOW that was traced below the image's own size gets its own kind
 * on a grid FINER times larger first, before the plain trace: detail lost to the working size (an
 * etching darkened and saved as JPEG, taken for a photograph and traced at 0.4 MP: 0.598, at 1 MP
 * 0.693, the plain trace 0.640) is better won back by the engine's own path than by the tracer
 * alone. The kind is kept, so a caller's mode is respected.
 */
export function finerPlan(first: TracePlan, fidelity: number, originalPixels: number): TracePlan | undefined {
  if (fidelity >= PLAIN_BELOW) return undefined;
  const plan = finerGrid(first, originalPixels, 'low-score');
  return plan && first.curveMode ? { ...plan, curveMode: first.curveMode } : plan;
}

/**
 * Tones replace ink only when they score this much higher. A low score alone is no evidence
 * against ink: ink flattens the paper's light and stains on purpose, and hatching finer than the
 * check's pixels counts there only by its mean tone, which tones draw as grey patches. A 1-bit
 * comic panel halved, its hatching a pixel wide: 0.693 as ink, 0.703 in tones, the hatching gone
 * into a mosaic of greys (since the ink's hatching is split before its threshold, 0.742 as ink;
 * reduced to 2/5, 0.690 as ink and 0.719 in tones). Where tones are the picture, they win by far
 * more (a soft scan of the corpus etching: 0.537 against 0.858; a handwritten page over-sharpened:
 * 0.626 against 0.844).
 */
export const TONE_MARGIN = 0.05;

/**
 * Ink is drawn in two tones. A trace as ink scoring under PLAIN_BELOW may have lost a picture's
 * mid-tones rather than its lines (a grey pixel-art banner taken for ink: 0.602, its tones traced
 * from a palette 0.956, the plain trace 0.879), so under `mode: auto` the photograph's path, whose
 * palette keeps tones and whose working size keeps it cheap, is tried before the plain trace. An
 * etching keeps its ink: its hatching at its own scale decides (convert.ts, keepsDetail), and
 * the tones must win by TONE_MARGIN.
 */
export function tonePlan(first: TracePlan, fidelity: number, params: TraceParams): TracePlan | undefined {
  if (params.mode !== 'auto' || first.kind !== 'sketch' || fidelity >= PLAIN_BELOW) return undefined;
  return { kind: 'photo', reason: 'low-score', costFactor: 1 };
}

/**
 * Ink traced in several inks (paint/ink-colours.ts) may be a picture in colour that ink draws
 * poorly (a coloured graphic, a chart on a shaded ground: 0.918 as ink, 0.931 as artwork, 0.961
 * once its detail is retraced): under `mode: auto` it is traced as artwork too. Before ink had
 * colours, the `colour` signature sent every such picture there. On a digital page, whose fills
 * ink draws under it (analyse/paper-tones.ts), artwork must win by INKS_MARGIN_ON_DIGITAL_PAGE:
 * it breaks small text into unreadable letters and yet scored up to 0.010 higher on a manual's
 * page, for drawing strokes as thin as the source's where ink's threshold thickens them. Pages
 * where ink keeps text whole score 0.009–0.021 higher as ink.
 */
export function inksPlan(first: TracePlan, severalInks: boolean, params: TraceParams): TracePlan | undefined {
  if (params.mode !== 'auto' || first.kind !== 'sketch' || !severalInks) return undefined;
  return { kind: 'logo', reason: 'inks', costFactor: LOGO_AFTER_INK_COST };
}

/** What artwork must win by to replace ink in several inks on a digital page (inksPlan). */
export const INKS_MARGIN_ON_DIGITAL_PAGE = 0.02;

/** Artwork's trace of a page against ink's: pages of manuals measured 0.6–1.6 times. */
const LOGO_AFTER_INK_COST = 1.5;

/**
 * A photograph or artwork scoring under PLAIN_BELOW, whatever the signatures, may be the other
 * kind: translucent artwork over transparency taken for a photograph (a wallpaper overlay of arcs
 * under half alpha: 0.566 as a photograph, 0.841 as artwork) fell through every retrace once its
 * photo trace was no longer faint enough for the `faint` signature. Under `mode: auto`, the other
 * kind is traced before the plain trace; artwork replaces a photograph only by the fall-through's
 * margin (convert.ts), since a person prefers a photograph's texture where the scores are close.
 */
export function otherKindPlan(first: TracePlan, fidelity: number, params: TraceParams): TracePlan | undefined {
  if (params.mode !== 'auto' || fidelity >= PLAIN_BELOW) return undefined;
  if (first.kind === 'photo') return { kind: 'logo', reason: 'low-score', costFactor: LOGO_COST };
  if (first.kind === 'logo') return { kind: 'photo', reason: 'low-score', costFactor: 1 };
  return undefined;
}

/**
 * A logo's trace against a photograph's of the same image, for the time check of a retrace as
 * artwork (the classifier's doubt, otherKindPlan): the artwork path segments and fits what the
 * photo path leaves to the tracer (the zune map halved, on a busy machine: 3.8 s as a photograph
 * on its grown grid, 7.1 s as a logo).
 */
export const LOGO_COST = 2;

/**
 * Artwork traced by its regions (trace/artwork.ts) scoring under this may have lost detail finer
 * than its regions: a halved map's labels or a small screenshot's text. Region traces of artwork
 * above icon size in the corpus and the tune part score 0.83 and more (one with a faded region,
 * 0.78); a map halved to 425 px scores 0.708 (its labels smudged), and 0.862 traced from its
 * palette, which keeps every patch. The tune part's street map scored 0.796 by its regions and
 * 0.847 from its palette; once lines a pixel wide kept their place (segment/upsample.ts,
 * trace/curves.ts), its regions scored 0.803–0.807 and passed the limit of 0.8, which sat too
 * near: the limit is the middle of the gap between that map and the artwork above it.
 */
export const PALETTE_BELOW = 0.815;
/**
 * Icons (this long side or less) are shown larger than their pixels, where the palette path's
 * pixel outlines show as steps: their region traces stand.
 */
const PALETTE_ABOVE_SIDE = 128;
/**
 * The palette path's time against the regions': it traces every working pixel where the regions
 * path traces a reduced grid (a photograph of 2 MP taken for artwork: 3.6 s in regions, 5.5 s from
 * its palette; a halved map 1.8 s and 0.5 s).
 */
const PALETTE_COST = 1.5;
/**
 * Large artwork is segmented on a grid coarser than its pixels (trace/artwork.ts, SEGMENT_PIXELS),
 * where lines a pixel wide blend into their ground and are merged away; the whole-picture check,
 * at CHECK_PIXELS, cannot see them either. Its most detailed crop at the image's own scale
 * (check/detail.ts) then scores far under the whole. Region traces of the corpus and the tune part
 * that have such a crop: at most 0.06 under (the city at sunset). Unseen: a genealogy chart of
 * 4 MP, its boxes' frames and connecting lines gone into grey smears, 0.29 under (from its palette
 * 0.936 whole and 0.798 in detail, against 0.906 and 0.617); a game map of 2 MP, 0.25 under; the
 * tests' chart of boxes with frames a pixel wide, its frames a sixth of their contrast, 0.147 under
 * (0.158 before regions the tracer joined were laid again: the gap first set, 0.15, was too near).
 */
export const DETAIL_GAP = 0.12;
/**
 * The palette path's time against the regions' where they lost detail: what they lost is lines on
 * flat ground, which the palette traces fast (the chart: 2.0 s against 2.9 s; the game map 1.4 s
 * against 2.2 s). At PALETTE_COST the chart's retrace did not fit in time on a slow run.
 */
export const DETAIL_PALETTE_COST = 1;
/**
 * Artwork traced by its regions and scoring under PALETTE_BELOW, or whose most detailed crop
 * scores DETAIL_GAP under the whole (reason `detail`): the same kind traced from its palette.
 * `detailFidelity` measures the crop (undefined: not measured); it is asked only when the score
 * alone does not already call for the palette.
 */
export function palettePlan(first: TracePlan, fidelity: number, tracedRegions: boolean, decoded: DecodedImage, detailFidelity?: () => number | undefined): TracePlan | undefined {
  if (first.kind !== 'logo' || !tracedRegions) return undefined;
  if (Math.max(decoded.originalWidth, decoded.originalHeight) <= PALETTE_ABOVE_SIDE) return undefined;
  const curveMode = first.curveMode ? { curveMode: first.curveMode } : {};
  if (fidelity < PALETTE_BELOW) return { kind: 'logo', path: 'palette', reason: 'palette', costFactor: PALETTE_COST, ...curveMode };
  const detail = detailFidelity?.();
  if (detail === undefined || detail >= fidelity - DETAIL_GAP) return undefined;
  return { kind: 'logo', path: 'palette', reason: 'detail', costFactor: DETAIL_PALETTE_COST, ...curveMode };
}

/** The first plan's kind on a grid FINER times larger, at most the image's own size; none when it was traced at that size. */
function finerGrid(first: TracePlan, originalPixels: number, reason: TracePlan['reason']): TracePlan | undefined {
  const kindPixels = first.workingPixels ?? workingPixelsFor(first.kind, originalPixels);
  if (kindPixels >= originalPixels) return undefined;
  return { kind: first.kind, workingPixels: Math.min(originalPixels, kindPixels * FINER), reason, costFactor: FINER };
}
