// What the tracer sees: the image at the working resolution of its kind, optionally
// enhanced, then reduced to what the tracer handles well — binary ink for line art,
// a small palette with binary alpha for colour work, exact pixels for pixel art.

import sharp, { type Sharp } from 'sharp';
import { OPAQUE_BELOW, type ImageKind } from './classify.ts';
import { workingSize } from './decode.ts';
import { colourDistance, mapToPalette, paletteOf, pixelWords, reducePalette } from './palette.ts';
import type { Rgb } from '../geometry.ts';
import { binariseInk, colouredInkShare, darkenThinLines, luma, separateInk, sharpenHatching, type SecondPaper } from './ink.ts';
import { inkLayersOf, withNeutralLevels, type InkLayers } from '../paint/ink-colours.ts';
import { levelledTones, neutralLevelsOf } from './grey-inks.ts';
import { digitalPaperOf, paperTonesOf } from './paper-tones.ts';
import { binariseAlpha } from '../trace/vtracer.ts';
import { componentRoots } from '../segment/components.ts';

export interface RgbaImage {
  rgba: Buffer;
  width: number;
  height: number;
}

/**
 * Pixels traced per kind. Binary tracing is cheap and thin strokes need resolution;
 * colour tracing costs grow with the number of regions, so photos get the least. Line art is
 * traced at its own size up to 16 MP, the most it is traced at when upscaled (sketchUpscaleFactor):
 * the 11.5 MP typed page scored SSIM 0.930 at full resolution traced at 4 MP, 0.966 at its own size.
 */
export const WORKING_PIXELS: Record<ImageKind, number> = {
  sketch: 16_000_000,
  logo: 2_000_000,
  photo: 400_000,
  pixelart: 1_000_000,
};

/**
 * Large photographs are traced larger than WORKING_PIXELS.photo, up to this many pixels, so that
 * a 100 % view keeps their detail: a photograph of LARGE_PHOTO_PIXELS or more gets all of it,
 * and between 2 MP and that the working size grows linearly. At 0.4 MP a 100 % crop of a 24 MP
 * photograph was a mosaic of shards (crop SSIM 0.58–0.68 against 0.66–0.73 for raw VTracer on the
 * photo shrunk to 1.5 MP); at 1 MP it was within 0.02 of it and its file a third of VTracer's.
 */
export const LARGE_PHOTO_WORKING_PIXELS = 1_000_000;
const LARGE_PHOTO_PIXELS = 8_000_000;

/** Pixels traced for an image of this kind and original size. */
export function workingPixelsFor(kind: ImageKind, originalPixels: number): number {
  if (kind !== 'photo') return WORKING_PIXELS[kind];
  const base = WORKING_PIXELS.photo;
  const growth = Math.min(1, Math.max(0, (originalPixels - 2_000_000) / (LARGE_PHOTO_PIXELS - 2_000_000)));
  return Math.round(base + growth * (LARGE_PHOTO_WORKING_PIXELS - base));
}

/** PNG and WebP are decoded at this size, classified, then reduced per kind (line art decoded again, larger). */
export const DECODE_PIXELS = WORKING_PIXELS.logo;

/** Line art and small logos below this long side are upscaled 2× by inputEnhance. */
const UPSCALE_BELOW = 600;

function raw(image: RgbaImage): Sharp {
  return sharp(image.rgba, { raw: { width: image.width, height: image.height, channels: 4 } });
}

async function toImage(pipeline: Sharp): Promise<RgbaImage> {
  const { data, info } = await pipeline.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { rgba: data, width: info.width, height: info.height };
}

/** Resamples to exactly this size. */
export async function resizeTo(image: RgbaImage, width: number, height: number): Promise<RgbaImage> {
  if (width === image.width && height === image.height) return image;
  return toImage(raw(image).resize(width, height, { fit: 'fill', kernel: 'lanczos3' }));
}

/** Downscales to at most this many pixels (never upscales). */
export async function fitToPixels(image: RgbaImage, maxPixels: number): Promise<RgbaImage> {
  const size = workingSize(image.width, image.height, maxPixels);
  if (size.width === image.width && size.height === image.height) return image;
  return toImage(raw(image).resize(size.width, size.height, { fit: 'fill', kernel: 'lanczos3' }));
}

/**
 * Line art at its native size is traced upscaled (bilinear luma, then thresholded): stroke widths
 * land on half or quarter pixels instead of whole ones, so thin lines keep their weight.
 * Binary tracing is cheap enough for this; see docs/benchmarks.md.
 */
export function sketchUpscaleFactor(pixels: number): number {
  if (pixels * 16 <= 4_000_000) return 4;
  if (pixels * 4 <= 16_000_000) return 2;
  return 1;
}

/** Brings the image to the working size of its kind (line art is upscaled later, while thresholding). */
export function fitToBudget(image: RgbaImage, kind: ImageKind): Promise<RgbaImage> {
  return fitToPixels(image, WORKING_PIXELS[kind]);
}

/**
 * inputEnhance before the threshold or palette step: a median filter removes scanner noise from
 * line art, and small line art and logos are upscaled so thin strokes survive. Photos are
 * enhanced after the palette step instead (SPECK_PIXELS); pixel art is left alone: every pixel
 * is meant.
 */
export async function enhanceInput(image: RgbaImage, kind: ImageKind): Promise<RgbaImage> {
  switch (kind) {
    case 'pixelart':
    case 'photo':
      return image;
    case 'logo':
    case 'sketch': {
      let current = image;
      if (Math.max(image.width, image.height) < UPSCALE_BELOW) {
        current = await toImage(raw(image).resize(image.width * 2, image.height * 2, { kernel: 'lanczos3' }));
      }
      return kind === 'sketch' ? toImage(raw(current).median(3)) : current;
    }
  }
}

/**
 * colorPrecision 1–8 onto the palette size the colour image is reduced to before tracing.
 * Photos get a step more: their shading is the picture, and a band too few reads as posterised.
 */
export const PALETTE_COLOURS: Record<'photo' | 'other', readonly number[]> = {
  photo: [4, 8, 16, 32, 64, 128, 192, 256],
  other: [2, 4, 8, 16, 32, 64, 128, 256],
};

/**
 * Reduces the image to a palette without dithering (libimagequant through sharp, then
 * reducePalette for sizes sharp does not honour). VTracer merges smooth gradients into one
 * flat layer; a palette turns them into bands it keeps, and flattens JPEG noise that would
 * otherwise become thousands of specks.
 */
export async function quantiseColours(image: RgbaImage, colours: number): Promise<RgbaImage> {
  const png = await raw(image)
    .png({ palette: true, colours: Math.min(256, colours), dither: 0, effort: 1, compressionLevel: 0 })
    .toBuffer();
  const quantised = await toImage(sharp(png).toColourspace('srgb'));
  if (colours <= 16 || colours >= 256) return quantised;
  return { ...quantised, rgba: reducePalette(quantised.rgba, colours) };
}

export interface PreparedPixels {
  rgba: Buffer;
  /** Paper painted under the traced ink, for opaque line art: the paper's colour in the image. */
  background?: Rgb;
  /** Line art: the colour the traced ink is painted in, the ink's colour in the image. */
  ink?: Rgb;
  /** Line art in several inks: which ink each traced ink pixel is traced in (paint/ink-colours.ts). */
  inkLayers?: InkLayers;
  /** Opaque line art on two papers (a sheet on a mount): the one not painted as the background. */
  secondPaper?: SecondPaper;
  /** A digital page's light fills besides its paper (analyse/paper-tones.ts), largest first. */
  paperTones?: SecondPaper[];
  /** Line art on a digital page: paper of one exact colour (analyse/paper-tones.ts). */
  digitalPaper?: boolean;
  /**
   * Line art on transparency: where the image is opaque, painted in the paper's colour under the
   * ink. With no paper to paint as a background, every opaque pixel still belongs to the picture
   * (a white figure outlined in black keeps its white).
   */
  silhouette?: SecondPaper;
  /** The colours a colour image was reduced to, for another size of the same image. */
  palette?: Uint32Array;
  /**
   * Pixel art with partly transparent pixels: the colour each was given for the tracer (key:
   * 0xRRGGBB), and the colour and opacity its shapes are painted in.
   */
  translucent?: Map<number, { color: Rgb; opacity: number }>;
}

/**
 * What the tracer may get per kind. Its time grows with the colour boundaries (pixels whose right
 * or lower neighbour has another colour) and, about six times as steeply, with the regions (areas
 * of one colour, each clustered, traced and written as a shape). A busy image is traced smaller
 * rather than slower. Boundaries fall with the pixel count to the power 1/1.5, between edges
 * (with the side) and texture (with the area), as measured on the corpus.
 */
interface TracerBudget {
  boundaries: number;
  regions: number;
  /** How boundaries fall as the pixel count falls: boundaries ∝ pixels^(1/exponent). */
  boundaryExponent: number;
}

const TRACER_BUDGET: Partial<Record<ImageKind, TracerBudget>> = {
  photo: { boundaries: 230_000, regions: 75_000, boundaryExponent: 1.5 },
  logo: { boundaries: 200_000, regions: 200_000, boundaryExponent: 1.5 },
};

/** Images larger than twice this are measured for the budget on a copy of this size. */
const BUDGET_SAMPLE_PIXELS = 500_000;

export function countBoundaries(rgba: Buffer, width: number, height: number): number {
  // Pixel words compared in place: readUInt32LE boxed every word above 2³¹ (every opaque pixel).
  const words = pixelWords(rgba);
  let boundaries = 0;
  for (let y = 0; y + 1 < height; y++) {
    for (let x = 0; x + 1 < width; x++) {
      const p = y * width + x;
      const here = words[p] as number;
      if (here !== words[p + 1] || here !== words[p + width]) boundaries++;
    }
  }
  return boundaries;
}

/** Each pixel's region, as the index of one pixel of it: 4-connected areas of one exact RGBA value. */
function regionRoots(rgba: Buffer, width: number, height: number): Int32Array {
  return componentRoots(pixelWords(rgba), width, height);
}

/** 4-connected areas of one exact RGBA value. */
export function countRegions(rgba: Buffer, width: number, height: number): number {
  const roots = regionRoots(rgba, width, height);
  let regions = 0;
  for (let i = 0; i < roots.length; i++) if (roots[i] === i) regions++;
  return regions;
}

export interface PreparedImage extends PreparedPixels {
  width: number;
  height: number;
  /** Shrunk to under half its pixels to fit the tracer budget: its detail is finer than the working grid. */
  dense: boolean;
}

/**
 * inputEnhance on photos merges areas of one palette colour up to this many pixels into their
 * neighbours: on the corpus photos and scans, 15–21 % fewer bytes for at most 0.01 SSIM, where a
 * 3×3 median before the palette step lost up to 0.10 SSIM at the same size.
 */
const SPECK_PIXELS = 2;

/** A shrink below this share of the pixels marks the image dense (a map, a chart), not just busy. */
const DENSE_BELOW_SCALE = 0.5;

/**
 * Dense artwork is traced at this many times the pixels its budget allows. A map's boundaries are
 * its content (roads, buildings, labels), where a busy photograph's are texture, and it is looked
 * at closely. Within the budget the 4.6 MP corpus map was traced at 0.30 MP: at 100 % every
 * building stepped by 4 px, and crops scored 0.62–0.90 against 0.69–0.92 for raw VTracer's trace
 * of the map shrunk to 1.5 MP. At 0.61 MP: crops 0.69–0.92, SSIM at 512 px 0.932 → 0.951 (raw
 * VTracer at full size 0.953), 2.2 → 3.6 MB (raw VTracer 5.6 MB), 3.2 → 5.4–5.9 s (docs/parameters.md).
 */
export const DENSE_ARTWORK_GROWTH = 2;

/**
 * A photograph traced larger than its base working size (workingPixelsFor) gets a budget as much
 * larger: the budget keeps busy photographs from being slow, not large ones from keeping detail.
 */
function scaledBudget(budget: TracerBudget | undefined, kind: ImageKind, pixels: number): TracerBudget | undefined {
  if (!budget || kind !== 'photo' || pixels <= WORKING_PIXELS.photo) return budget;
  const growth = pixels / WORKING_PIXELS.photo;
  return { ...budget, boundaries: budget.boundaries * growth, regions: budget.regions * growth };
}

/**
 * The share of its pixels an image of `pixels` may keep within the tracer budget, measured on a
 * palette version of it (`rgba`, width × height) and extrapolated to the full size.
 */
function budgetScale(budget: TracerBudget, rgba: Buffer, width: number, height: number, pixels: number): number {
  const growth = pixels / (width * height);
  const boundaries = countBoundaries(rgba, width, height) * growth ** (1 / budget.boundaryExponent);
  const regions = countRegions(rgba, width, height) * growth;
  return Math.min(1, (budget.boundaries / boundaries) ** budget.boundaryExponent, budget.regions / regions);
}

/**
 * Dense artwork (a map, a chart): its palette version, measured on a smaller copy (`rgba`,
 * width × height), would have to be traced at under half of `pixels` to fit the logo budget;
 * its detail is finer than a reduced grid keeps.
 */
export function isDenseArtwork(rgba: Buffer, width: number, height: number, pixels: number): boolean {
  return budgetScale(TRACER_BUDGET.logo as TracerBudget, binariseAlpha(rgba), width, height, pixels) < DENSE_BELOW_SCALE;
}

/**
 * Prepares the pixels, shrinking a colour image that exceeds its kind's tracer budget. A dense
 * picture that may be artwork (`mayBeArtwork`: a logo, or a photograph only by elimination, such
 * as a map saved as JPEG) is traced at DENSE_ARTWORK_GROWTH times the pixels the budget allows.
 */
export async function prepareWithinBudget(
  image: RgbaImage,
  kind: ImageKind,
  colorPrecision: number,
  sketchUpscale: number,
  inputEnhance = false,
  mayBeArtwork = kind === 'logo',
): Promise<PreparedImage> {
  if (kind === 'sketch') {
    const prepared = await prepareLineArt(image, sketchUpscale);
    return { ...prepared, width: image.width * sketchUpscale, height: image.height * sketchUpscale, dense: false };
  }
  // inputEnhance on photos: specks merged after the palette step, at the size the budget
  // chose without them, so the file shrinks rather than the image growing to fill the budget.
  const despeckle = inputEnhance && kind === 'photo';
  const budget = scaledBudget(TRACER_BUDGET[kind], kind, image.width * image.height);
  if (!budget) return { ...(await prepareForTracer(image, kind, colorPrecision)), width: image.width, height: image.height, dense: false };
  // A large image is measured on a quarter-size copy first: a palette pass over 2 MP costs more
  // than the measuring saves, and the palette found there serves the size traced. Regions are
  // extrapolated with the area (an overestimate for flat artwork, whose small features merge
  // when it shrinks), boundaries with the budget's exponent.
  const pixels = image.width * image.height;
  const sample = pixels > 2 * BUDGET_SAMPLE_PIXELS ? await fitToPixels(image, BUDGET_SAMPLE_PIXELS) : image;
  const sampled = await prepareForTracer(sample, kind, colorPrecision);
  const share = budgetScale(budget, sampled.rgba, sample.width, sample.height, pixels);
  const dense = share < DENSE_BELOW_SCALE;
  const scale = dense && mayBeArtwork ? Math.min(1, share * DENSE_ARTWORK_GROWTH) : share;
  // One shrink is enough: a second would cost another measuring pass for little gain.
  const traced = scale < 1 ? await fitToPixels(image, Math.max(16_384, pixels * scale)) : image;
  const prepared = traced === sample ? sampled : await prepareForTracer(traced, kind, colorPrecision, sampled.palette);
  const rgba = despeckle ? mergeSpecks(prepared.rgba, traced.width, traced.height, SPECK_PIXELS) : prepared.rgba;
  return { ...prepared, rgba, width: traced.width, height: traced.height, dense };
}

/**
 * Line art: ink found against the local paper (ink.ts), black for the binary tracer; the ink and
 * paper colours are taken from the image, the paper painted as a background when the source is
 * opaque.
 */
async function prepareLineArt(image: RgbaImage, upscale: number): Promise<PreparedPixels> {
  let transparent = 0;
  for (let i = 3; i < image.rgba.length; i += 4) if ((image.rgba[i] as number) < 128) transparent++;
  const opaque = transparent / (image.width * image.height) < OPAQUE_BELOW;
  let separation = separateInk(image.rgba, image.width, image.height);
  // Coloured ink is found by its colour as well as its luma, and each piece painted in its own ink.
  const coloured = colouredInkShare(image.rgba, image.width, image.height, separation.paper) >= COLOURED_INK_MIN_SHARE;
  if (coloured) separation = separateInk(image.rgba, image.width, image.height, 'colour');
  // A digital page: paper of one exact colour, painted as it is, and its tinted fills under the ink
  // (which are what a second paper's test finds there: a scan's sheet on a mount has no exact colour).
  const exactPaper = opaque ? digitalPaperOf(image.rgba) : undefined;
  // The commonest colour is the paper only where the ink's separation finds the paper there (not a
  // black ground that outweighs a 1-bit page's white).
  const digitalPaper = exactPaper && Math.abs(luma(exactPaper.r, exactPaper.g, exactPaper.b) - luma(separation.paper.r, separation.paper.g, separation.paper.b)) <= DIGITAL_PAPER_LUMA ? exactPaper : undefined;
  // Grey text beside black on a digital page: its levels of grey (grey-inks.ts).
  const neutralLevels = digitalPaper ? neutralLevelsOf(image.rgba, image.width, image.height, separation.normalised) : undefined;
  // Upscaled, a line thinner than a pixel can keep its weight (on the image's own grid it cannot).
  const thin = upscale > 1 ? darkenThinLines(separation, image.width, image.height) : separation.normalised;
  // Hatching split into its lines before the threshold (ink.ts).
  const { levels: sharpened, threshold } = await sharpenHatching(thin, image.rgba, image.width, image.height);
  // Each grey level thresholded at its own halfway, where the page's threshold would cut its strokes.
  const levels = neutralLevels ? levelledTones(sharpened, neutralLevels, threshold) : sharpened;
  const ink = binariseInk(levels, image.width, image.height, upscale, threshold);
  const source = { rgba: image.rgba, width: image.width, height: image.height, tone: separation.normalised, threshold: separation.threshold };
  const inkWidth = image.width * upscale;
  const inkHeight = image.height * upscale;
  const colouredLayers = coloured ? inkLayersOf(ink, inkWidth, inkHeight, upscale, source, separation.paper, separation.ink, neutralLevels?.colours[0]) : undefined;
  const inkLayers = neutralLevels ? withNeutralLevels(colouredLayers, ink, inkWidth, inkHeight, upscale, neutralLevels, image.width, image.height) : colouredLayers;
  const paperTones = digitalPaper ? paperTonesOf(image.rgba, image.width, image.height, inkAtOwnSize(separation), digitalPaper) : [];
  return {
    rgba: ink,
    background: opaque ? (digitalPaper ?? separation.paper) : undefined,
    ink: inkLayers?.main ?? separation.ink,
    ...(paperTones.length > 0 ? { paperTones } : {}),
    ...(digitalPaper ? { digitalPaper: true } : {}),
    ...(inkLayers ? { inkLayers } : {}),
    secondPaper: opaque && !digitalPaper ? separation.secondPaper : undefined,
    silhouette: opaque || !hasOpaquePaper(image, separation) ? undefined : silhouetteOf(image, upscale, separation.paper, ink),
  };
}

/**
 * Line art with at least this share of its pixels in coloured ink (ink.ts, colouredInkShare: a
 * few coloured words on a page) is traced in several inks. None of the corpus's or the tune
 * part's ink images has any; pages of manuals with a coloured word or line 0.0001–0.01.
 */
const COLOURED_INK_MIN_SHARE = 0.0002;

/** A digital page's exact paper colour is the separation's paper within this much luma. */
const DIGITAL_PAPER_LUMA = 24;

/** Where the ink lies on the image's own grid (1), by its threshold. */
function inkAtOwnSize(separation: { normalised: Uint8Array; threshold: number }): Uint8Array {
  const ink = new Uint8Array(separation.normalised.length);
  for (let p = 0; p < ink.length; p++) if ((separation.normalised[p] as number) < separation.threshold) ink[p] = 1;
  return ink;
}

/** Of the opaque pixels of line art on transparency, at least this share must be paper for the paper to be painted. */
const SILHOUETTE_MIN_PAPER = 0.05;
/** ... and the paper this much lighter than the ink (luma). */
const SILHOUETTE_MIN_CONTRAST = 40;

/**
 * Line art on transparency with paper of its own (a figure filled in white), not ink alone: some
 * of its opaque pixels are clearly lighter than the ink, nearer the paper's colour than the ink's.
 */
function hasOpaquePaper(image: RgbaImage, separation: { ink: Rgb; paper: Rgb }): boolean {
  const inkLuma = luma(separation.ink.r, separation.ink.g, separation.ink.b);
  const paperLuma = luma(separation.paper.r, separation.paper.g, separation.paper.b);
  if (paperLuma - inkLuma < SILHOUETTE_MIN_CONTRAST) return false;
  const middle = (inkLuma + paperLuma) / 2;
  let opaque = 0;
  let paper = 0;
  for (let i = 0; i < image.rgba.length; i += 4) {
    if ((image.rgba[i + 3] as number) < 128) continue;
    opaque++;
    if (luma(image.rgba[i] as number, image.rgba[i + 1] as number, image.rgba[i + 2] as number) > middle) paper++;
  }
  return paper > SILHOUETTE_MIN_PAPER * opaque;
}

/**
 * The opaque part of an image (alpha at least a half), black on white, upscaled as the ink is.
 * Where ink lies on its rim, the rim is taken in by a traced pixel: the ink covers it, and the
 * two outlines, fitted apart, would otherwise leave a hairline of paper outside the ink.
 */
function silhouetteOf(image: RgbaImage, upscale: number, colour: Rgb, ink: Buffer): SecondPaper {
  const transparency = new Uint8Array(image.width * image.height);
  for (let p = 0; p < transparency.length; p++) transparency[p] = 255 - (image.rgba[p * 4 + 3] as number);
  const mask = binariseInk(transparency, image.width, image.height, upscale, 128);
  const width = image.width * upscale;
  const height = image.height * upscale;
  const words = new Uint32Array(mask.buffer, mask.byteOffset, width * height);
  const inkWords = new Uint32Array(ink.buffer, ink.byteOffset, width * height);
  const black = 0xff000000;
  const rim: number[] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      if (words[p] !== black || inkWords[p] !== black) continue;
      const outside = (x > 0 && words[p - 1] !== black) || (x + 1 < width && words[p + 1] !== black) || (y > 0 && words[p - width] !== black) || (y + 1 < height && words[p + width] !== black);
      if (outside) rim.push(p);
    }
  }
  for (const p of rim) words[p] = 0xffffffff;
  return { colour, mask, maskWidth: width, maskHeight: height, pixelsPerMaskPixel: 1 / upscale };
}

/** A colour image is reduced to `palette` when given (found on another size of it), else to a palette of its own. */
export async function prepareForTracer(
  image: RgbaImage,
  kind: ImageKind,
  colorPrecision: number,
  palette?: Uint32Array,
): Promise<PreparedPixels> {
  switch (kind) {
    case 'sketch':
      return await prepareLineArt(image, 1);
    case 'pixelart':
      return preparePixelArt(image.rgba);
    case 'photo':
    case 'logo': {
      const colours = PALETTE_COLOURS[kind === 'photo' ? 'photo' : 'other'][colorPrecision - 1] ?? 64;
      const quantised = palette ? mapToPalette(image.rgba, palette) : (await quantiseColours(image, colours)).rgba;
      return { rgba: binariseAlpha(quantised), palette: palette ?? paletteOf(quantised) };
    }
  }
}

/** Alpha below this (a sixteenth) is rounding noise in pixel art, not a pixel drawn: it is left clear. */
const PIXEL_ART_MIN_ALPHA = 16;

/**
 * Pixel art for the tracer, which keys out alpha 0 and ignores the rest. Pixel art has no
 * anti-aliasing, so every pixel that is not clear was drawn: a partly transparent one (a drop
 * shadow, glass) is traced as a shape of its own, in a colour no other pixel has, painted
 * afterwards in its own colour and opacity (`translucent`). Made opaque or clear at half alpha,
 * as other kinds are, a sprite's shadow would vanish or smear.
 */
function preparePixelArt(rgba: Buffer): PreparedPixels {
  let translucentPixels = false;
  const used = new Set<number>();
  for (let p = 0; p < rgba.length; p += 4) {
    const alpha = rgba[p + 3] as number;
    if (alpha === 255) used.add(rgbAt(rgba, p));
    else if (alpha >= PIXEL_ART_MIN_ALPHA) translucentPixels = true;
  }
  if (!translucentPixels) return { rgba: binariseAlpha(rgba) };
  const keyOf = new Map<number, number>();
  const translucent = new Map<number, { color: Rgb; opacity: number }>();
  const out = Buffer.alloc(rgba.length);
  for (let p = 0; p < rgba.length; p += 4) {
    const alpha = rgba[p + 3] as number;
    if (alpha < PIXEL_ART_MIN_ALPHA) continue;
    let key = rgbAt(rgba, p);
    if (alpha < 255) {
      const colour = key * 256 + alpha;
      let assigned = keyOf.get(colour);
      if (assigned === undefined) {
        // The nearest colour value that no opaque pixel and no other translucent colour has.
        assigned = key;
        while (used.has(assigned)) assigned = (assigned + 1) & 0xffffff;
        used.add(assigned);
        keyOf.set(colour, assigned);
        translucent.set(assigned, { color: { r: rgba[p] as number, g: rgba[p + 1] as number, b: rgba[p + 2] as number }, opacity: alpha / 255 });
      }
      key = assigned;
    }
    out[p] = key >> 16;
    out[p + 1] = (key >> 8) & 0xff;
    out[p + 2] = key & 0xff;
    out[p + 3] = 255;
  }
  return { rgba: out, translucent };
}

/** The colour of the pixel at byte `p` of an RGBA buffer as 0xRRGGBB. */
function rgbAt(rgba: Buffer, p: number): number {
  return ((rgba[p] as number) << 16) | ((rgba[p + 1] as number) << 8) | (rgba[p + 2] as number);
}

/**
 * Pixel art prepared with translucent pixels (preparePixelArt), split into its opaque pixels and
 * its translucent ones. The translucent layer is opaque everywhere, its other pixels in `ground`, a
 * colour far from every translucent pixel's: the tracer then keys nothing out, and the ground's
 * shape is dropped when the layer is painted (paint/opacity.ts, paintTranslucentPixels). Left to
 * VTracer's keying, a layer of a few red pixels came back as one red shape over the whole picture:
 * the key colour it picked was next to theirs.
 */
export function splitTranslucentPixels(rgba: Buffer, translucent: ReadonlyMap<number, unknown>): { opaque: Buffer; translucent: Buffer; ground: number } {
  const ground = farthestColour([...translucent.keys()]);
  const opaque = Buffer.from(rgba);
  const layer = Buffer.from(rgba);
  for (let p = 0; p < rgba.length; p += 4) {
    if (rgba[p + 3] !== 0 && translucent.has(rgbAt(rgba, p))) {
      opaque.fill(0, p, p + 4);
    } else {
      layer[p] = ground >> 16;
      layer[p + 1] = (ground >> 8) & 0xff;
      layer[p + 2] = ground & 0xff;
      layer[p + 3] = 255;
    }
  }
  return { opaque, translucent: layer, ground };
}

/**
 * Of the corners and the middle of the RGB cube, the colour whose nearest of `colours` (0xRRGGBB)
 * is farthest; should all nine be among them, the next value none of them is.
 */
function farthestColour(colours: number[]): number {
  const channels = (c: number) => [c >> 16, (c >> 8) & 0xff, c & 0xff] as const;
  let best = 0;
  let bestDistance = -1;
  for (const candidate of [0x000000, 0xffffff, 0xff0000, 0x00ff00, 0x0000ff, 0xffff00, 0xff00ff, 0x00ffff, 0x808080]) {
    const [r, g, b] = channels(candidate);
    let nearest = Infinity;
    for (const colour of colours) {
      const [cr, cg, cb] = channels(colour);
      nearest = Math.min(nearest, Math.abs(r - cr) + Math.abs(g - cg) + Math.abs(b - cb));
    }
    if (nearest > bestDistance) {
      bestDistance = nearest;
      best = candidate;
    }
  }
  const taken = new Set(colours);
  while (taken.has(best)) best = (best + 1) & 0xffffff;
  return best;
}

/**
 * Specks of a palette image (4-connected areas of one colour of at most `maxPixels` pixels)
 * take, pixel by pixel, the nearest colour (alpha weighted as in the palette) among their
 * 4-neighbours outside the speck. Each speck is a region of its own for the tracer; on photos
 * they are sensor and JPEG noise more than detail.
 */
export function mergeSpecks(rgba: Buffer, width: number, height: number, maxPixels: number): Buffer {
  const source = pixelWords(rgba);
  const roots = regionRoots(rgba, width, height);
  const size = new Int32Array(width * height);
  for (const root of roots) size[root] = (size[root] as number) + 1;
  const out = Buffer.from(rgba);
  const target = pixelWords(out);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const own = roots[i] as number;
      if ((size[own] as number) > maxPixels) continue;
      const here = source[i] as number;
      let best = Infinity;
      for (const n of [x > 0 ? i - 1 : -1, x + 1 < width ? i + 1 : -1, y > 0 ? i - width : -1, y + 1 < height ? i + width : -1]) {
        if (n < 0 || roots[n] === own) continue;
        const word = source[n] as number;
        const distance = colourDistance(word, here);
        if (distance < best) {
          best = distance;
          target[i] = word;
        }
      }
    }
  }
  return out;
}
