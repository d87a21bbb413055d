// `centerline` over real HTTP, on a line drawing and on handwriting. Measured here with helpers
// that share nothing with the engine: the ink is found from the source's own pixels (darker than
// the paper around it), the SVG's strokes are parsed and rendered by resvg.
// - strokes only where there were lines: the stroke pixels lie on the ink;
// - the drawing covers the ink: the ink's pixels lie under strokes or filled areas;
// - no doubled strokes: the length of stroke running along another stroke (within half a
//   width, away from the junctions at its ends);
// - no tiny spurs; strokes ordered for short pen-up travel;
// - DXF open polylines, PDF and EPS stroked paths, rendered like the SVG.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { pathElements, subpathsOf } from '../../helpers/coverage.ts';
import { corpusFile } from '../../helpers/http.ts';
import { pdfContent, readDxf } from '../../helpers/readers.ts';
import { renderEps, renderersProblem, renderPdf, renderSvg, ssimOf } from '../../helpers/renderers.ts';
import { startPrintCutService, type PrintCutService } from './files.ts';

const renderers = renderersProblem();

interface Stroke {
  points: number[];
  width: number;
}

/** The strokes of an SVG: each open subpath of each `fill="none"` path, with its width. */
function strokesOf(svg: string): Stroke[] {
  const strokes: Stroke[] = [];
  for (const match of svg.matchAll(/<path d="([^"]*)" fill="none" stroke="#[0-9a-f]{6}" stroke-width="([\d.]+)"/g)) {
    for (const points of subpathsOf(match[1] as string)) strokes.push({ points, width: Number(match[2]) });
  }
  return strokes;
}

function lengthOf(points: number[]): number {
  let length = 0;
  for (let i = 2; i < points.length; i += 2) length += Math.hypot((points[i] as number) - (points[i - 2] as number), (points[i + 1] as number) - (points[i - 1] as number));
  return length;
}

/** A square filter over a grey image: the maximum, or the mean, of each (2r + 1)² window. */
function windowFilter(grey: ArrayLike<number>, width: number, height: number, radius: number, kind: 'max' | 'mean'): Float32Array {
  const pass = (input: ArrayLike<number>, horizontal: boolean): Float32Array => {
    const out = new Float32Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        let best = 0;
        let sum = 0;
        let n = 0;
        for (let k = -radius; k <= radius; k++) {
          const nx = horizontal ? x + k : x;
          const ny = horizontal ? y : y + k;
          if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
          const value = input[ny * width + nx] as number;
          best = Math.max(best, value);
          sum += value;
          n++;
        }
        out[y * width + x] = kind === 'max' ? best : sum / n;
      }
    }
    return out;
  };
  return pass(pass(grey, true), false);
}

/** The source's ink: pixels darker than the paper around them (the brightest nearby, smoothed) by `darker` of its brightness. */
async function inkOf(file: string, darker: number): Promise<{ mask: Uint8Array; width: number; height: number }> {
  const grey = await sharp(corpusFile(file)).flatten({ background: '#ffffff' }).greyscale().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = grey.info;
  const paper = windowFilter(windowFilter(grey.data, width, height, 5, 'max'), width, height, 8, 'mean');
  const mask = new Uint8Array(width * height);
  for (let i = 0; i < mask.length; i++) mask[i] = (grey.data[i] as number) < (1 - darker) * (paper[i] as number) ? 1 : 0;
  return { mask, width, height };
}

/** Pixels within `radius` of the mask (a square window). */
function grown(mask: Uint8Array, width: number, height: number, radius: number): Uint8Array {
  const out = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!mask[y * width + x]) continue;
      for (let dy = -radius; dy <= radius; dy++) {
        for (let dx = -radius; dx <= radius; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          if (nx >= 0 && ny >= 0 && nx < width && ny < height) out[ny * width + nx] = 1;
        }
      }
    }
  }
  return out;
}

/** Pixels an SVG (or only its strokes) paints, rendered by resvg at the image's size. */
function painted(svg: string, width: number): Uint8Array {
  const image = new Resvg(svg, { fitTo: { mode: 'width', value: width } }).render();
  // `pixels` copies the whole image at each read: read once.
  const pixels = image.pixels;
  const mask = new Uint8Array(image.width * image.height);
  for (let i = 0; i < mask.length; i++) mask[i] = (pixels[i * 4 + 3] as number) >= 128 ? 1 : 0;
  return mask;
}

function strokesOnly(svg: string): string {
  return svg.replace(/\n<path d="[^"]*" fill="#[0-9a-f]{6}"\/>/g, '');
}

/**
 * Share of the stroke length that runs within half a width of another stroke, away from where
 * strokes end (a junction: strokes meet there by design).
 */
function doubledShare(strokes: Stroke[]): number {
  // Segments in a grid of 4 px cells.
  const cell = 4;
  const grid = new Map<string, { stroke: number; ax: number; ay: number; bx: number; by: number }[]>();
  strokes.forEach(({ points }, stroke) => {
    for (let i = 2; i < points.length; i += 2) {
      const ax = points[i - 2] as number;
      const ay = points[i - 1] as number;
      const bx = points[i] as number;
      const by = points[i + 1] as number;
      for (let cx = Math.floor(Math.min(ax, bx) / cell); cx <= Math.floor(Math.max(ax, bx) / cell); cx++) {
        for (let cy = Math.floor(Math.min(ay, by) / cell); cy <= Math.floor(Math.max(ay, by) / cell); cy++) {
          const key = `${cx},${cy}`;
          const list = grid.get(key) ?? [];
          list.push({ stroke, ax, ay, bx, by });
          grid.set(key, list);
        }
      }
    }
  });
  const distance = (px: number, py: number, s: { ax: number; ay: number; bx: number; by: number }) => {
    const dx = s.bx - s.ax;
    const dy = s.by - s.ay;
    const l = dx * dx + dy * dy;
    const t = l === 0 ? 0 : Math.max(0, Math.min(1, ((px - s.ax) * dx + (py - s.ay) * dy) / l));
    return Math.hypot(px - (s.ax + t * dx), py - (s.ay + t * dy));
  };
  // Stroke ends, in the same grid.
  const ends = new Map<string, [number, number][]>();
  for (const { points } of strokes) {
    for (const [x, y] of [
      [points[0] as number, points[1] as number],
      [points[points.length - 2] as number, points[points.length - 1] as number],
    ] as const) {
      const key = `${Math.floor(x / cell)},${Math.floor(y / cell)}`;
      const list = ends.get(key) ?? [];
      list.push([x, y]);
      ends.set(key, list);
    }
  }
  const nearAnEnd = (px: number, py: number, reach: number): boolean => {
    const cx = Math.floor(px / cell);
    const cy = Math.floor(py / cell);
    const cells = Math.ceil(reach / cell);
    for (let dx = -cells; dx <= cells; dx++) {
      for (let dy = -cells; dy <= cells; dy++) {
        for (const [x, y] of ends.get(`${cx + dx},${cy + dy}`) ?? []) if (Math.hypot(px - x, py - y) <= reach) return true;
      }
    }
    return false;
  };
  let total = 0;
  let doubled = 0;
  strokes.forEach(({ points, width }, stroke) => {
    for (let i = 2; i < points.length; i += 2) {
      const ax = points[i - 2] as number;
      const ay = points[i - 1] as number;
      const bx = points[i] as number;
      const by = points[i + 1] as number;
      const segment = Math.hypot(bx - ax, by - ay);
      for (let s = 0.25; s < segment; s += 0.5) {
        total += 0.5;
        const px = ax + ((bx - ax) * s) / segment;
        const py = ay + ((by - ay) * s) / segment;
        if (nearAnEnd(px, py, 2 * width + 1)) continue;
        const near = grid.get(`${Math.floor(px / cell)},${Math.floor(py / cell)}`) ?? [];
        if (near.some((other) => other.stroke !== stroke && distance(px, py, other) < width / 2)) doubled += 0.5;
      }
    }
  });
  return total === 0 ? 0 : doubled / total;
}

/** Pen-up travel between consecutive strokes, in the order given. */
function travel(strokes: Stroke[]): number {
  let sum = 0;
  for (let i = 1; i < strokes.length; i++) {
    const a = (strokes[i - 1] as Stroke).points;
    const b = (strokes[i] as Stroke).points;
    sum += Math.hypot((b[0] as number) - (a[a.length - 2] as number), (b[1] as number) - (a[a.length - 1] as number));
  }
  return sum;
}

const IMAGES = [
  { file: 'sketch/imagetracerjs_flower_lineart.png', what: 'a line drawing', darker: 0.25 },
  { file: 'document/skimage_text_handwriting_gray.png', what: 'handwriting', darker: 0.3 },
];

describe('centerline', () => {
  let api: PrintCutService;
  before(async () => {
    api = await startPrintCutService('centerline@example.com');
  });
  after(async () => api.close());

  for (const { file, what, darker } of IMAGES) {
    it(`${what} (${file}): open strokes on the ink, covering it, none doubled, no spurs, ordered`, async (t) => {
      const { svg } = await api.json(file, { centerline: true });
      const { mask: ink, width, height } = await inkOf(file, darker);

      // Strokes: open paths, no fill, the ink's colour, a width, round ends.
      const paths = [...svg.matchAll(/<path d="([^"]*)"([^>]*)\/>/g)];
      const strokePaths = paths.filter((match) => /fill="none"/.test(match[2] as string));
      assert.ok(strokePaths.length > 0, 'there are strokes');
      for (const [, d, attributes] of strokePaths) {
        assert.match(attributes as string, /^ fill="none" stroke="#[0-9a-f]{6}" stroke-width="[\d.]+" stroke-linecap="round" stroke-linejoin="round"$/);
        assert.doesNotMatch(d as string, /z/i, 'strokes are open paths');
      }
      assert.ok(!svg.includes(`<path d="M0 0H${width}V${height}H0z"`), 'the paper is not drawn');
      const strokes = strokesOf(svg);

      // Strokes only where there were lines.
      const strokePixels = painted(strokesOnly(svg), width);
      const nearInk = grown(ink, width, height, 2);
      let onInk = 0;
      let strokeCount = 0;
      for (let i = 0; i < strokePixels.length; i++) {
        if (!strokePixels[i]) continue;
        strokeCount++;
        if (nearInk[i]) onInk++;
      }
      const precision = onInk / strokeCount;

      // The drawing covers the ink (strokes, and the areas too wide for a line).
      const drawn = grown(painted(svg, width), width, height, 1);
      let inkCount = 0;
      let covered = 0;
      for (let i = 0; i < ink.length; i++) {
        if (!ink[i]) continue;
        inkCount++;
        if (drawn[i]) covered++;
      }
      const recall = covered / inkCount;

      const doubled = doubledShare(strokes);
      const totalLength = strokes.reduce((sum, stroke) => sum + lengthOf(stroke.points), 0);
      const spurs = strokes.filter((stroke) => lengthOf(stroke.points) < stroke.width);
      const ordered = travel(strokes);
      const scan = travel([...strokes].sort((a, b) => (a.points[1] as number) - (b.points[1] as number) || (a.points[0] as number) - (b.points[0] as number)));
      t.diagnostic(
        `${strokes.length} strokes, ${totalLength.toFixed(0)} px; stroke pixels on the ink ${(precision * 100).toFixed(1)} %; ink covered ${(recall * 100).toFixed(1)} %; ` +
          `doubled ${(doubled * 100).toFixed(2)} %; strokes shorter than their width ${spurs.length}; pen-up travel ${ordered.toFixed(0)} px ordered, ${scan.toFixed(0)} px in scan order`,
      );
      assert.ok(precision >= 0.95, `stroke pixels on the ink: ${precision}`);
      assert.ok(recall >= 0.9, `ink covered: ${recall}`);
      assert.ok(doubled <= 0.02, `doubled: ${doubled}`);
      assert.ok(spurs.length <= 0.02 * strokes.length, `${spurs.length} strokes shorter than their width`);
      assert.ok(ordered < 0.6 * scan, `pen-up travel ${ordered} against ${scan} in scan order`);
    });
  }

  it('DXF open polylines, PDF and EPS stroked paths, drawn like the SVG', { skip: renderers }, async () => {
    const file = 'sketch/imagetracerjs_flower_lineart.png';
    const params = { centerline: true };
    const { svg } = await api.json(file, params);
    const strokes = strokesOf(svg);
    const dxf = readDxf((await api.file('dxf', file, params)).toString('utf8'));
    const open = dxf.entities.filter((entity) => entity.type === 'LWPOLYLINE' && !entity.shape);
    const closed = dxf.entities.filter((entity) => entity.type === 'LWPOLYLINE' && entity.shape);
    assert.equal(open.length, strokes.length, 'a DXF open polyline per stroke');
    const filledSubpaths = pathElements(svg).filter((path) => path.fill !== 'none').reduce((n, path) => n + subpathsOf(path.d, 3).length, 0);
    assert.equal(closed.length, filledSubpaths, 'a closed polyline per filled outline');

    const reference = renderSvg(svg);
    const pdf = await api.file('pdf', file, params);
    const content = pdfContent(pdf);
    assert.match(content, /\n1 J\n/, 'round caps');
    assert.match(content, /\n[\d.]+ w\n/, 'line widths');
    assert.match(content, /\nS\n/, 'stroked paths');
    const eps = await api.file('eps', file, params);
    assert.match(eps.toString('latin1'), /setlinewidth 1 setlinecap 1 setlinejoin [\d.]+ [\d.]+ [\d.]+ rg s/);
    const pdfSsim = await ssimOf(await renderPdf(pdf), reference, 162, 215);
    const epsSsim = await ssimOf(await renderEps(eps), reference, 162, 215);
    assert.ok(pdfSsim >= 0.95, `PDF SSIM ${pdfSsim}`);
    assert.ok(epsSsim >= 0.95, `EPS SSIM ${epsSsim}`);
  });

  it('refuses a centerline that is not a boolean, naming the member', async () => {
    for (const value of ['true', 1, null]) {
      const res = await api.post('sketch/imagetracerjs_flower_lineart.png', { centerline: value });
      assert.equal(res.status, 400);
      assert.match(String(res.body.error), /params\.centerline: must be a boolean/);
    }
  });
});
