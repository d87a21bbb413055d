// The PDF, EPS and DXF writers on a hand-made model with gradients, curves, holes and a
// translucent shape (the corpus logos trace to flat colours only), and the cut-out stage.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import dxfParser, { type DxfParser as DxfParserType } from 'dxf-parser';
import { cutOut } from '../../../src/engine/write/cutouts.ts';
import { flat, meanColour, PathCommand, type PathGeometry, type TracedShape, type VectorImage, withoutDegenerateSubpaths, withStraightLines } from '../../../src/engine/geometry.ts';
import { colourLayerName, writeDxf } from '../../../src/engine/write/dxf.ts';
import { writeEps } from '../../../src/engine/write/eps.ts';
import { writePdf } from '../../../src/engine/write/pdf.ts';
import { writeSvgDocument } from '../../../src/engine/write/svg.ts';
import { countSubpaths, overlapAndGaps } from '../../helpers/coverage.ts';
import { renderEps, renderersProblem, renderPdf, renderSvg, ssimOf } from '../../helpers/renderers.ts';

const DxfParser = dxfParser as unknown as typeof DxfParserType;
const { move, line, cubic, close } = PathCommand;

function rectangle(x0: number, y0: number, x1: number, y1: number): PathGeometry {
  return { commands: [move, line, line, line, close], coords: [x0, y0, x1, y0, x1, y1, x0, y1] };
}

/** A circle of four cubics, counter-clockwise when `reverse` (a hole). */
function circle(cx: number, cy: number, r: number, reverse = false): PathGeometry {
  const k = 0.5523 * r;
  const coords = reverse
    ? [cx + r, cy, cx + r, cy - k, cx + k, cy - r, cx, cy - r, cx - k, cy - r, cx - r, cy - k, cx - r, cy, cx - r, cy + k, cx - k, cy + r, cx, cy + r, cx + k, cy + r, cx + r, cy + k, cx + r, cy]
    : [cx + r, cy, cx + r, cy + k, cx + k, cy + r, cx, cy + r, cx - k, cy + r, cx - r, cy + k, cx - r, cy, cx - r, cy - k, cx - k, cy - r, cx, cy - r, cx + k, cy - r, cx + r, cy - k, cx + r, cy];
  return { commands: [move, cubic, cubic, cubic, cubic, close], coords };
}

// Working size 100 × 80, written at twice that: the writers must scale paths and gradients alike.
const MODEL: VectorImage = {
  width: 200,
  height: 160,
  scaleX: 2,
  scaleY: 2,
  background: { r: 250, g: 245, b: 235 },
  shapes: [
    {
      fill: { kind: 'linear', x1: 5, y1: 0, x2: 95, y2: 0, stops: [
        { offset: 0.1, color: { r: 200, g: 30, b: 30 }, opacity: 1 },
        { offset: 0.5, color: { r: 240, g: 220, b: 40 }, opacity: 1 },
        { offset: 0.9, color: { r: 30, g: 90, b: 200 }, opacity: 1 },
      ] },
      opacity: 1,
      paths: [rectangle(5, 5, 95, 45)],
    },
    {
      fill: { kind: 'radial', cx: 50, cy: 55, r: 22, stops: [
        { offset: 0, color: { r: 255, g: 255, b: 255 }, opacity: 1 },
        { offset: 1, color: { r: 20, g: 120, b: 60 }, opacity: 1 },
      ] },
      opacity: 1,
      paths: [{ commands: [...circle(50, 55, 22).commands, ...circle(50, 55, 8, true).commands], coords: [...circle(50, 55, 22).coords, ...circle(50, 55, 8, true).coords] }],
    },
    { fill: flat({ r: 20, g: 20, b: 20 }), opacity: 1, paths: [rectangle(70, 50, 90, 75)] },
    { fill: flat({ r: 0, g: 0, b: 255 }), opacity: 0.5, paths: [rectangle(10, 60, 30, 75)] },
  ],
};

const renderers = renderersProblem();

describe('PDF and EPS writers render the model as the SVG writer does', { skip: renderers }, () => {
  const { svg } = writeSvgDocument(MODEL, 2);
  const reference = renderSvg(svg);

  test('PDF: linear and radial shadings, a hole, opacity (pdftoppm)', async () => {
    const similarity = await ssimOf(await renderPdf(await writePdf(MODEL, 2)), reference, 200, 160);
    assert.ok(similarity >= 0.98, `SSIM ${similarity}`);
  });

  test('EPS: level-3 shadings, a hole, opacity mixed with the paper (Ghostscript)', async () => {
    // Rendered 4× and averaged down: Ghostscript leaves the edges of shadings aliased (0.974 at 72 dpi).
    const similarity = await ssimOf(await renderEps(writeEps(MODEL, 2), 4), reference, 200, 160);
    assert.ok(similarity >= 0.98, `SSIM ${similarity}`);
  });
});

test('DXF: a closed polyline per subpath on the layer of each paint’s mean colour, y up', () => {
  const dxf = new DxfParser().parseSync(writeDxf(MODEL, 2));
  assert.ok(dxf);
  const entities = dxf.entities as unknown as { type: string; shape?: boolean; layer: string; vertices: { x: number; y: number }[] }[];
  assert.equal(entities.length, countSubpaths(writeSvgDocument(MODEL, 2).svg));
  assert.ok(entities.every((entity) => entity.type === 'LWPOLYLINE' && entity.shape === true));
  const expectedLayers = new Set([MODEL.background!, ...MODEL.shapes.map((shape) => meanColour(shape.fill))].map(colourLayerName));
  assert.deepEqual(new Set(entities.map((entity) => entity.layer)), expectedLayers);
  // The dark rectangle spans y 100–150 in pixels from the top: 10–60 with y pointing up.
  const dark = entities.find((entity) => entity.layer === 'COLOR_141414');
  assert.deepEqual(new Set(dark?.vertices.map((vertex) => vertex.y)), new Set([60, 10]));
  // Curves are flattened finely: the outer circle of radius 44 px has many vertices, all on it.
  const ring = entities.filter((entity) => entity.layer === colourLayerName(meanColour(MODEL.shapes[1]!.fill)));
  const outer = ring.find((entity) => entity.vertices.length > 0 && Math.hypot(entity.vertices[0]!.x - 100, entity.vertices[0]!.y - 50) > 40);
  assert.ok(outer && outer.vertices.length >= 32);
  for (const { x, y } of outer.vertices) assert.ok(Math.abs(Math.hypot(x - 100, y - 50) - 44) < 0.1);
});

test('cutOut: shapes lose what later shapes cover, keep their paint and order, and leave no gap', () => {
  const shapes: TracedShape[] = [
    { fill: flat({ r: 255, g: 0, b: 0 }), opacity: 1, paths: [rectangle(0, 0, 60, 60)] },
    { fill: flat({ r: 0, g: 255, b: 0 }), opacity: 1, paths: [circle(50, 50, 20)] },
    { fill: flat({ r: 0, g: 0, b: 255 }), opacity: 1, paths: [rectangle(20, 20, 30, 30)] },
    // Entirely under the blue square: disappears.
    { fill: flat({ r: 9, g: 9, b: 9 }), opacity: 1, paths: [rectangle(22, 22, 28, 28)] },
    { fill: flat({ r: 0, g: 0, b: 255 }), opacity: 1, paths: [rectangle(21, 21, 29, 29)] },
  ];
  const cut = cutOut(shapes, 0.01, { unitsX: 100, unitsY: 100 });
  assert.deepEqual(cut.map((shape) => shape.fill), [shapes[0]!.fill, shapes[1]!.fill, shapes[2]!.fill, shapes[4]!.fill]);
  const image = (list: TracedShape[]): VectorImage => ({ width: 80, height: 80, scaleX: 1, scaleY: 1, shapes: list });
  const before = overlapAndGaps(writeSvgDocument(image(shapes), 2).svg, 80, 80, 4);
  const after = overlapAndGaps(writeSvgDocument(image(cut), 2).svg, 80, 80, 4);
  assert.ok(before.overlap > 0.05);
  assert.ok(after.overlap < 0.001, `overlap ${after.overlap}`);
  assert.ok(Math.abs(after.uncovered - before.uncovered) < 0.001);
});

test('subpaths that enclose nothing at the written precision are dropped, and shapes left empty with them', () => {
  const sliver: PathGeometry = { commands: [move, line, close, move, line, close], coords: [10, 10, 12, 11, 20, 20, 20.02, 20.01] };
  const square = rectangle(0, 0, 5, 5);
  const image: VectorImage = {
    width: 40,
    height: 40,
    scaleX: 1,
    scaleY: 1,
    shapes: [
      { fill: flat({ r: 255, g: 0, b: 0 }), opacity: 1, paths: [sliver] },
      { fill: flat({ r: 0, g: 0, b: 255 }), opacity: 1, paths: [{ commands: [...square.commands, ...sliver.commands], coords: [...square.coords, ...sliver.coords] }] },
      // A triangle of 0.08 pixel² is still an area at three decimals; one of 0.02 is a speck.
      { fill: flat({ r: 0, g: 255, b: 0 }), opacity: 1, paths: [{ commands: [move, line, line, close], coords: [30, 30, 30.4, 30, 30, 30.4] }] },
      { fill: flat({ r: 0, g: 255, b: 255 }), opacity: 1, paths: [{ commands: [move, line, line, close], coords: [35, 35, 35.2, 35, 35, 35.2] }] },
    ],
  };
  const kept = withoutDegenerateSubpaths(image, 3);
  assert.deepEqual(
    kept.shapes.map((shape) => shape.fill),
    [flat({ r: 0, g: 0, b: 255 }), flat({ r: 0, g: 255, b: 0 })],
  );
  assert.deepEqual(kept.shapes[0]!.paths, [square]);
  // At whole pixels the small triangle rounds to a line and goes too.
  assert.equal(withoutDegenerateSubpaths(image, 0).shapes.length, 1);
  const svg = writeSvgDocument(kept, 3).svg;
  assert.equal(countSubpaths(svg), 2);
});

test("a gradient's mean colour is taken over its stops as drawn, offsets clamped to 0–1", () => {
  const black = { r: 0, g: 0, b: 0 };
  const white = { r: 255, g: 255, b: 255 };
  // Drawn, the stops sit at 0 and 1: half black, half white on average, whatever lay beyond.
  const mean = meanColour({ kind: 'linear', x1: 0, y1: 0, x2: 1, y2: 0, stops: [{ offset: -1, color: black, opacity: 1 }, { offset: 3, color: white, opacity: 1 }] });
  assert.deepEqual(mean, { r: 127.5, g: 127.5, b: 127.5 });
  const clampedAway = meanColour({ kind: 'linear', x1: 0, y1: 0, x2: 1, y2: 0, stops: [{ offset: 0, color: black, opacity: 1 }, { offset: 1, color: black, opacity: 1 }, { offset: 1.5, color: white, opacity: 1 }] });
  assert.deepEqual(clampedAway, black);
});

test('straight cubics are written as lines, and a line continuing the one before it extends it', () => {
  // A square whose top side is three straight cubics and a line, and whose right side bows by 2 px.
  const path: PathGeometry = {
    commands: [move, cubic, cubic, line, cubic, line, line, close],
    coords: [0, 0, 2, 0, 4, 0, 6, 0, 8, 0, 9, 0, 10, 0, 20, 0, 22, 5, 22, 15, 20, 20, 0, 20, 0, 10],
  };
  const image: VectorImage = { width: 20, height: 20, scaleX: 1, scaleY: 1, shapes: [{ fill: flat({ r: 0, g: 0, b: 0 }), opacity: 1, paths: [path] }] };
  const straight = withStraightLines(image, 2).shapes[0]!.paths[0]!;
  // The top becomes one line, the bowed side stays a curve, the corner at (0, 20) stays a corner.
  assert.deepEqual(straight.commands, [move, line, cubic, line, line, close]);
  assert.deepEqual(straight.coords, [0, 0, 20, 0, 22, 5, 22, 15, 20, 20, 0, 20, 0, 10]);
  // A line that doubles back is not an extension of the one before it.
  const back: PathGeometry = { commands: [move, line, line, close], coords: [0, 0, 10, 0, 5, 0] };
  assert.deepEqual(withStraightLines({ ...image, shapes: [{ ...image.shapes[0]!, paths: [back] }] }, 2).shapes[0]!.paths[0], back);
});
