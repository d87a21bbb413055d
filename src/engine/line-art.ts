// Line art as it is painted: the binary tracer's ink shapes take the ink's colour, and a second
// paper tone (a sheet on a mount), when the image has one, is traced from its mask and painted
// between the background (the main paper) and the ink.

import type { Config } from '@neplex/vectorizer';
import { flat, type TracedShape } from './geometry.ts';
import type { SecondPaper } from './ink.ts';
import type { Rgb } from './geometry.ts';
import { parseTracerSvg } from './tracer-output.ts';
import { runTracer } from './trace.ts';

/** Islands of the second paper smaller than this many mask pixels across are dropped (two paper-grid cells). */
const SECOND_PAPER_SPECKLE = 8;

export async function paintLineArt(
  inkShapes: TracedShape[],
  colours: { ink?: Rgb; secondPaper?: SecondPaper },
  /** Traced pixels per image pixel of the working image. */
  upscale: number,
  config: Config,
  straightTolerance: number,
): Promise<TracedShape[]> {
  const { ink, secondPaper } = colours;
  if (ink) for (const shape of inkShapes) shape.fill = flat(ink);
  if (!secondPaper) return inkShapes;
  const svg = await runTracer(secondPaper.mask, secondPaper.maskWidth, secondPaper.maskHeight, { ...config, filterSpeckle: SECOND_PAPER_SPECKLE });
  const paperShapes = parseTracerSvg(svg, straightTolerance);
  const scale = secondPaper.pixelsPerMaskPixel * upscale;
  for (const shape of paperShapes) {
    shape.fill = flat(secondPaper.colour);
    for (const path of shape.paths) for (let i = 0; i < path.coords.length; i++) path.coords[i] = (path.coords[i] as number) * scale;
  }
  return [...paperShapes, ...inkShapes];
}
