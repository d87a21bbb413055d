// A large photograph traced in tiles: the tiles cover the picture, each traced wider than it is
// drawn and clipped exactly; drawn together they leave no gap, and where two tiles meet the
// picture is the whole trace's, so no seam shows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Resvg } from '@resvg/resvg-js';
import { PathCommand, type PathGeometry, type TracedShape } from '../../../src/engine/geometry.ts';
import { clippedShape, MARGIN, OVERLAP, TILED_ABOVE_PIXELS, tilesOf, traceInTiles, tracedInTiles, TILE_SIDE } from '../../../src/engine/trace/tiles.ts';
import { roundPolygons } from '../../../src/engine/trace/rounded.ts';
import { parseTracerSvg } from '../../../src/engine/trace/tracer-output.ts';
import { buildTracerConfig, runTracer } from '../../../src/engine/trace/vtracer.ts';
import { DEFAULT_PARAMS } from '../../../src/engine/params.ts';
import { writePathData } from '../../../src/engine/write/svg.ts';
import { drawnRgba, posterised, randomSequence } from '../fixtures.ts';

const PHOTO_CONFIG = buildTracerConfig({ ...DEFAULT_PARAMS }, { kind: 'photo', curveMode: 'polygon', workingScale: 0.25 });

function square(x0: number, y0: number, x1: number, y1: number): number[] {
  return [x0, y0, x1, y0, x1, y1, x0, y1];
}

function shapeOf(...polygons: number[][]): TracedShape {
  const commands: number[] = [];
  const coords: number[] = [];
  for (const polygon of polygons) {
    for (let i = 0; i < polygon.length; i += 2) commands.push(i === 0 ? PathCommand.move : PathCommand.line);
    commands.push(PathCommand.close);
    coords.push(...polygon);
  }
  return { fill: { kind: 'flat', color: { r: 0, g: 0, b: 0 } }, opacity: 1, paths: [{ commands, coords }] };
}

/** The filled area of a path of polygons under the even-odd rule, for rings that nest (signed shoelace, holes wound the other way). */
function area(path: PathGeometry): number {
  let total = 0;
  let ring: number[] = [];
  const flush = () => {
    let sum = 0;
    for (let i = 0; i < ring.length; i += 2) {
      const j = (i + 2) % ring.length;
      sum += (ring[i] as number) * (ring[j + 1] as number) - (ring[j] as number) * (ring[i + 1] as number);
    }
    total += sum / 2;
    ring = [];
  };
  let at = 0;
  for (const command of path.commands) {
    if (command === PathCommand.close) flush();
    else {
      ring.push(path.coords[at] as number, path.coords[at + 1] as number);
      at += 2;
    }
  }
  if (ring.length > 0) flush();
  return Math.abs(total);
}

test('tilesOf: the drawn tiles cover the picture, reach OVERLAP under the tiles drawn after them, and are traced MARGIN wider', () => {
  const width = 700;
  const height = 500;
  const tiles = tilesOf(width, height);
  assert.equal(tiles.length, Math.ceil(width / TILE_SIDE) * Math.ceil(height / TILE_SIDE));
  const covered = new Uint8Array(width * height);
  for (const { drawn, traced } of tiles) {
    for (let y = Math.ceil(drawn.y0); y < drawn.y1; y++) for (let x = Math.ceil(drawn.x0); x < drawn.x1; x++) covered[y * width + x] = 1;
    assert.ok(drawn.x1 - drawn.x0 <= TILE_SIDE + OVERLAP + 1 && drawn.y1 - drawn.y0 <= TILE_SIDE + OVERLAP + 1);
    // Inside the picture, drawn edges lie half-way between pixels' corners.
    for (const [edge, size] of [[drawn.x0, width], [drawn.x1, width], [drawn.y0, height], [drawn.y1, height]] as const) assert.ok(edge === 0 || edge === size || edge % 1 === 0.5);
    assert.equal(traced.x0, Math.max(0, Math.ceil(drawn.x0) - MARGIN));
    assert.equal(traced.y0, Math.max(0, Math.ceil(drawn.y0) - MARGIN));
    assert.equal(traced.x1, Math.min(width, Math.floor(drawn.x1) - (drawn.x1 === width ? 0 : OVERLAP) + MARGIN));
    assert.equal(traced.y1, Math.min(height, Math.floor(drawn.y1) - (drawn.y1 === height ? 0 : OVERLAP) + MARGIN));
  }
  assert.ok(covered.every((value) => value === 1));
  // Left to right: each tile begins where the one before it ends, less OVERLAP and a pixel.
  const [first, second] = tiles as [(typeof tiles)[number], (typeof tiles)[number]];
  assert.equal(first.drawn.x1 - second.drawn.x0, OVERLAP + 1);
});

test('tracedInTiles: only pictures over TILED_ABOVE_PIXELS (a large photograph), traced as polygons at the default layer step or finer', () => {
  const large = 1_000_000;
  assert.equal(tracedInTiles(large, PHOTO_CONFIG), true);
  assert.equal(tracedInTiles(TILED_ABOVE_PIXELS, PHOTO_CONFIG), false);
  // The corpus's 768 × 512 photograph, traced at its own size; its 50 MP portrait, traced at 0.42 MP.
  assert.equal(tracedInTiles(768 * 512, PHOTO_CONFIG), false);
  assert.equal(tracedInTiles(553 * 754, PHOTO_CONFIG), true);
  assert.equal(tracedInTiles(large, buildTracerConfig({ ...DEFAULT_PARAMS, layerDifference: 3 }, { kind: 'photo', curveMode: 'polygon', workingScale: 0.25 })), false);
  assert.equal(tracedInTiles(large, buildTracerConfig({ ...DEFAULT_PARAMS }, { kind: 'photo', curveMode: 'spline', workingScale: 0.25 })), false);
});

test('clippedShape: a shape inside is kept as it is, one outside is dropped, one across is cut to the box with its holes', () => {
  const box = { x0: 5, y0: 0, x1: 20, y1: 20 };
  const inside = shapeOf(square(6, 1, 9, 4));
  assert.equal(clippedShape(inside, box), inside);
  assert.equal(clippedShape(shapeOf(square(-10, 0, -2, 10)), box), undefined);
  const across = clippedShape(shapeOf(square(0, 0, 10, 10)), box);
  assert.ok(across);
  assert.equal(area(across.paths[0] as PathGeometry), 50);
  for (let i = 0; i < (across.paths[0] as PathGeometry).coords.length; i += 2) assert.ok(((across.paths[0] as PathGeometry).coords[i] as number) >= 5);
  // A square ring with a square hole (wound the other way), cut through the hole.
  const hole = [3, 3, 3, 7, 7, 7, 7, 3];
  const ring = clippedShape(shapeOf(square(0, 0, 10, 10), hole), box);
  assert.ok(ring);
  assert.equal(area(ring.paths[0] as PathGeometry), 50 - 8);
});

/** A photograph's palette: soft colour fields and round blots under grain, posterised, so regions of every size cross the tiles' edges. */
function palettePhoto(width: number, height: number): Buffer {
  const random = randomSequence(11);
  const blots = Array.from({ length: 60 }, () => ({ x: random() * width, y: random() * height, r: 6 + random() * 30, tone: random() * 120 }));
  const grain = Array.from({ length: width * height }, () => (random() - 0.5) * 24);
  const rgba = drawnRgba(width, height, (x, y) => {
    const px = Math.min(width - 1, Math.floor(x)) + Math.min(height - 1, Math.floor(y)) * width;
    let value = 90 + 60 * Math.sin(x / 53) + 40 * Math.cos(y / 37) + (grain[px] as number);
    for (const blot of blots) if ((x - blot.x) ** 2 + (y - blot.y) ** 2 < blot.r ** 2) value = blot.tone + (grain[px] as number);
    const v = Math.max(0, Math.min(255, value));
    return [v, Math.max(0, Math.min(255, v * 0.8 + 30)), Math.max(0, Math.min(255, 220 - v * 0.6)), 255];
  }, 1);
  return posterised(rgba, 24);
}

function svgOf(shapes: readonly TracedShape[], width: number, height: number, scale: number, black = false): string {
  const body = shapes
    .map((shape) => {
      const colour = shape.fill.kind === 'flat' ? shape.fill.color : { r: 0, g: 0, b: 0 };
      const fill = black ? '#000' : `rgb(${colour.r},${colour.g},${colour.b})`;
      return `<path fill="${fill}" d="${writePathData(shape.paths, { scaleX: 1, scaleY: 1, decimals: 3 }).d}"/>`;
    })
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width * scale}" height="${height * scale}" viewBox="0 0 ${width} ${height}">${black ? '<rect width="100%" height="100%" fill="#fff"/>' : ''}${body}</svg>`;
}

test('traceInTiles: drawn rounded at any scale, the tiles leave no gap', async () => {
  const width = 720;
  const height = 500;
  const shapes = await traceInTiles(palettePhoto(width, height), width, height, PHOTO_CONFIG, 0.15);
  // As a photograph traced coarser than its output is drawn (rounded.ts), black on white at a
  // scale that puts the tiles' edges between pixels, where a hairline between two edges shows.
  roundPolygons(shapes, { width, height });
  const coverage = new Resvg(svgOf(shapes, width, height, 2.3, true)).render().pixels;
  let light = 0;
  for (let i = 0; i < coverage.length; i += 4) if ((coverage[i] as number) > 16) light++;
  assert.equal(light, 0);
});

/** Mean difference (levels) of each column and of each row between two RGBA pictures. */
function differences(a: Uint8Array, b: Uint8Array, width: number, height: number): { columns: number[]; rows: number[] } {
  const columns = new Array<number>(width).fill(0);
  const rows = new Array<number>(height).fill(0);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const d = (Math.abs((a[i] as number) - (b[i] as number)) + Math.abs((a[i + 1] as number) - (b[i + 1] as number)) + Math.abs((a[i + 2] as number) - (b[i + 2] as number))) / 3;
      columns[x] = (columns[x] as number) + d / height;
      rows[y] = (rows[y] as number) + d / width;
    }
  }
  return { columns, rows };
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
}

test("traceInTiles: next to a tile's edge, the picture is the whole trace's as much as anywhere else, drawn at any scale (no seam)", async () => {
  const width = 720;
  const height = 500;
  const rgba = palettePhoto(width, height);
  const tiledShapes = await traceInTiles(rgba, width, height, PHOTO_CONFIG, 0.15);
  const wholeShapes = parseTracerSvg(await runTracer(rgba, width, height, PHOTO_CONFIG), 0.15);
  const tiles = tilesOf(width, height);
  const cutsX = [...new Set(tiles.map((tile) => tile.drawn.x0).filter((x) => x > 0))];
  const cutsY = [...new Set(tiles.map((tile) => tile.drawn.y0).filter((y) => y > 0))];
  assert.ok(cutsX.length >= 2 && cutsY.length >= 1);
  // At its own size the tiles' edges fall between pixels; drawn smaller, inside them.
  for (const scale of [1, 0.77]) {
    const w = Math.round(width * scale);
    const h = Math.round(height * scale);
    const tiled = new Resvg(svgOf(tiledShapes, width, height, scale)).render().pixels;
    const whole = new Resvg(svgOf(wholeShapes, width, height, scale)).render().pixels;
    const { columns, rows } = differences(tiled, whole, w, h);
    for (const [name, values, cuts] of [['columns', columns, cutsX], ['rows', rows, cutsY]] as const) {
      const distance = (at: number) => Math.min(...cuts.map((cut) => Math.abs(at + 0.5 - cut * scale)));
      const elsewhere = values.filter((_, at) => distance(at) > 4);
      // Cut straight with no margin, the columns next to an edge differed by 0.93 levels against
      // 0.16 elsewhere; traced with MARGIN, by 0.24 against 0.07 (each tile's clustering differs a little).
      const near = median(values.filter((_, at) => distance(at) <= 4));
      assert.ok(near <= median(elsewhere) + 0.5, `at scale ${scale}, ${name} next to the tiles' edges differ by ${near.toFixed(2)} levels, elsewhere by ${median(elsewhere).toFixed(2)}`);
      // A tile's stacked shapes all ending at its edge showed its lower shapes' colours through
      // their anti-aliasing: one line of columns 4 to 11 levels off along the edge (0.6–1.4 now).
      const worst = Math.max(...values.filter((_, at) => distance(at) <= 1));
      assert.ok(worst <= 2, `at scale ${scale}, a line of ${name} along a tile's edge differs by ${worst.toFixed(2)} levels`);
    }
  }
});
