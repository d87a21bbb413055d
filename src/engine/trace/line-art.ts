// Line art as it is painted: the binary tracer's ink shapes take the ink's colour, and a second
// paper tone (a sheet on a mount), when the image has one, is traced from its mask and painted
// between the background (the main paper) and the ink.

import type { Config } from '@neplex/vectorizer';
import { fittingTolerance } from './artwork.ts';
import { fitOutlines, type CurveOptions } from './curves.ts';
import { flat, type TracedShape } from '../geometry.ts';
import type { TraceParams } from '../params.ts';
import type { SecondPaper } from '../analyse/ink.ts';
import type { Rgb } from '../geometry.ts';
import { parseTracerSvg } from './tracer-output.ts';
import { inkInColourConfig, runTracer, secondPaperTracerConfig } from './vtracer.ts';
import { nearestSpotColour, type SpotColourRequest } from '../paint/spot-colours.ts';
import { inkLayerRaster, type InkLayers } from '../paint/ink-colours.ts';


/**
 * Standard deviation (pixels) of the smoothing along an ink outline traced on the image's own
 * grid: it takes out the pixel staircase (a period of one pixel) and keeps the ragged edge of
 * typed or printed ink (a few pixels). 0.5–1 px measured alike; see fitsInkOutlines.
 */
const INK_SMOOTHING_PIXELS = 0.7;

/**
 * Line art traced on its own pixel grid (too large to be upscaled) gets its outlines fitted here
 * from the exact pixel outlines, not by VTracer's staircase removal: that cuts off every one-pixel
 * bump and notch of the ink, and at the image's own size those are its texture. On the 11.5 MP
 * typed page, SSIM at full resolution 0.977 against 0.966 (Potrace 0.979). Upscaled line art is
 * smooth already (bilinear luma, then threshold), and VTracer's splines scored higher there.
 */
export function fitsInkOutlines(curveMode: string, sketchUpscale: number): boolean {
  return curveMode === 'spline' && sketchUpscale === 1;
}

export function inkCurveOptions(params: TraceParams): CurveOptions {
  return {
    tolerance: fittingTolerance(params.segmentLength),
    cornerAngle: params.cornerThreshold,
    cornerSpan: 1.5,
    sampleStep: 1,
    spliceAngle: params.spliceThreshold,
    smoothing: INK_SMOOTHING_PIXELS,
    straightTolerance: 0.25,
  };
}

export function fitInkOutlines(shapes: TracedShape[], params: TraceParams): void {
  const options = inkCurveOptions(params);
  for (const shape of shapes) shape.paths = shape.paths.map((path) => fitOutlines(path, options));
}

/**
 * Ink pixels that touch only at a corner joined through one of the two paper pixels beside them
 * (the top-right one): black = 0xff000000 words, as binariseInk writes them. VTracer's binary
 * mode fails outright ("Unknown error occurred") on some images full of such contacts (rows of
 * dots whose period shifts a pixel a row, dithered or halftoned scans), where its colour mode
 * does not; the contact is one pixel either way. Used only to trace again after that failure
 * (traceInkAgain). It does not cure every such failure: the 14.7 MP corpus illustration forced to
 * `sketch` (a photograph-like picture thresholded into noise) and the corpus etching in a white
 * margin still failed, and went to the colour mode.
 */
export function joinDiagonalInk(rgba: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(rgba);
  const words = new Uint32Array(out.buffer, out.byteOffset, width * height);
  const ink = (word: number): boolean => (word & 0xff) < 128 && word >>> 24 >= 128;
  // A pixel added can make a new corner contact with a row already passed: again until none is left.
  for (let changed = true, passes = 0; changed && passes < 16; passes++) {
    changed = false;
    for (let y = 0; y + 1 < height; y++) {
      for (let x = 0; x + 1 < width; x++) {
        const topLeft = ink(words[y * width + x] as number);
        const topRight = ink(words[y * width + x + 1] as number);
        const bottomLeft = ink(words[(y + 1) * width + x] as number);
        const bottomRight = ink(words[(y + 1) * width + x + 1] as number);
        if ((topLeft && bottomRight && !topRight && !bottomLeft) || (topRight && bottomLeft && !topLeft && !bottomRight)) {
          words[y * width + x + (topLeft ? 1 : 0)] = 0xff000000;
          changed = true;
        }
      }
    }
  }
  return out;
}

/**
 * The ink traced again after VTracer's binary mode failed on it: first with its corner contacts
 * joined (joinDiagonalInk), then, if that fails too, by the colour mode (inkInColourConfig), whose
 * shapes are those of the ink and of the paper's islands stacked over it (`inColour`: see
 * paperIslandsOf). The tracer is a parameter so that tests can make the binary mode fail.
 */
export async function traceInkAgain(
  ink: Buffer,
  width: number,
  height: number,
  config: Config,
  tracer: typeof runTracer = runTracer,
): Promise<{ svg: string; inColour: boolean }> {
  const joined = joinDiagonalInk(ink, width, height);
  try {
    return { svg: await tracer(joined, width, height, config), inColour: false };
  } catch {
    return { svg: await tracer(joined, width, height, inkInColourConfig(config)), inColour: true };
  }
}

/**
 * The paper's islands among the shapes of ink traced in colour (traceInkAgain): the light ones.
 * The colour mode stacks them over the ink around them, so they are painted in the paper's
 * colour where they lie, or left out where the paper is transparent (a hole filled, the best the
 * fallback can do there).
 */
export function paperIslandsOf(shapes: TracedShape[]): Set<TracedShape> {
  return new Set(shapes.filter((shape) => shape.fill.kind === 'flat' && shape.fill.color.r + shape.fill.color.g + shape.fill.color.b >= 3 * 128));
}

/**
 * Line art in several inks (paint/ink-colours.ts): each ink traced as a binary layer of its own,
 * in its box, and painted in its colour, the main ink first. Strokes of two inks that meet are
 * parted where they meet instead of taking one colour between theirs.
 */
export async function traceInkLayers(layers: InkLayers, config: Config, straightTolerance: number): Promise<TracedShape[]> {
  const shapes: TracedShape[] = [];
  for (let k = 0; k < layers.colours.length; k++) {
    const box = layers.boxes[k] as InkLayers['boxes'][number];
    if (box.x1 <= box.x0) continue;
    const raster = inkLayerRaster(layers, k);
    const svg = await runTracer(raster.rgba, raster.width, raster.height, config);
    for (const shape of parseTracerSvg(svg, straightTolerance)) {
      shape.fill = flat(layers.colours[k] as Rgb);
      for (const path of shape.paths) {
        for (let i = 0; i + 1 < path.coords.length; i += 2) {
          path.coords[i] = (path.coords[i] as number) + box.x0;
          path.coords[i + 1] = (path.coords[i + 1] as number) + box.y0;
        }
      }
      shapes.push(shape);
    }
  }
  return shapes;
}

export async function paintLineArt(
  inkShapes: TracedShape[],
  colours: { ink?: Rgb; secondPaper?: SecondPaper; silhouette?: SecondPaper; paperTones?: SecondPaper[] },
  /** Traced pixels per image pixel of the working image. */
  upscale: number,
  config: Config,
  straightTolerance: number,
): Promise<TracedShape[]> {
  const { ink, secondPaper, silhouette, paperTones } = colours;
  if (ink) for (const shape of inkShapes) shape.fill = flat(ink);
  const papers: TracedShape[] = [];
  // Under the ink, bottom first: the opaque silhouette on transparency, then a second paper tone.
  if (silhouette) papers.push(...(await tracePaper(silhouette, upscale, config, straightTolerance)));
  if (secondPaper) papers.push(...(await tracePaper(secondPaper, upscale, secondPaperTracerConfig(config), straightTolerance)));
  // A digital page's tinted fills, largest first.
  for (const tone of paperTones ?? []) papers.push(...(await tracePaper(tone, upscale, secondPaperTracerConfig(config), straightTolerance)));
  return [...papers, ...inkShapes];
}

/** A paper's mask traced and painted in its colour, in the ink's traced pixels. */
async function tracePaper(paper: SecondPaper, upscale: number, config: Config, straightTolerance: number): Promise<TracedShape[]> {
  const svg = await runTracer(paper.mask, paper.maskWidth, paper.maskHeight, config);
  const shapes = parseTracerSvg(svg, straightTolerance);
  const scale = paper.pixelsPerMaskPixel * upscale;
  for (const shape of shapes) {
    shape.fill = flat(paper.colour);
    if (scale !== 1) for (const path of shape.paths) for (let i = 0; i < path.coords.length; i++) path.coords[i] = (path.coords[i] as number) * scale;
  }
  return shapes;
}

/**
 * Line art in spot colours (`palette`, `maxColors`): the ink, the paper and the second paper each
 * take the nearest palette colour (Oklab). Parts that end up in one colour are one: paper in the
 * ink's colour leaves the ink alone on a clear page (the ink is the drawing), and a second paper
 * in the paper's colour is the paper. Under `maxColors` the second paper goes first, then the
 * paper. Returns the shapes and the background to paint.
 */
export function spotColourLineArt(
  shapes: TracedShape[],
  parts: { ink?: Rgb; background?: Rgb },
  request: SpotColourRequest,
): { shapes: TracedShape[]; background?: Rgb } {
  const isInk = (shape: TracedShape) => shape.fill.kind === 'flat' && shape.fill.color === parts.ink;
  let ink = shapes.filter(isInk);
  let secondPaper = shapes.filter((shape) => !isInk(shape));
  let background = parts.background;
  const spot = (colour: Rgb): Rgb => (request.palette ? (request.palette[nearestSpotColour(colour, request.palette)] as Rgb) : colour);
  const same = (a: Rgb, b: Rgb) => a.r === b.r && a.g === b.g && a.b === b.b;
  const inkColour = spot(parts.ink ?? { r: 0, g: 0, b: 0 });
  ink = ink.map((shape) => ({ ...shape, fill: flat(inkColour), opacity: 1 }));
  if (background) background = spot(background);
  secondPaper = secondPaper.map((shape) => ({ ...shape, fill: flat(spot(shape.fill.kind === 'flat' ? shape.fill.color : inkColour)), opacity: 1 }));
  if (background && same(background, inkColour)) {
    background = undefined;
    secondPaper = [];
  }
  secondPaper = secondPaper.filter((shape) => shape.fill.kind === 'flat' && !(background && same(shape.fill.color, background)));
  const limit = request.maxColors ?? Infinity;
  if (limit < 3) secondPaper = [];
  if (limit < 2) background = undefined;
  return { shapes: [...secondPaper, ...ink], ...(background ? { background } : {}) };
}
