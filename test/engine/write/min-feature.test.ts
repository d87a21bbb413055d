// The grid minFeature, the cut report and an icon's sliver step measure widths on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flat } from '../../../src/engine/geometry.ts';
import { Clipper, EndType, JoinType, type Path64, type Paths64 } from 'clipper2-ts';
import { isNarrowerThan, measuringGrid, removeNarrowFeatures } from '../../../src/engine/write/min-feature.ts';

const icon = { width: 32, height: 32, scaleX: 1, scaleY: 1, shapes: [] };

test('the measuring grid follows the output step, with at least 16 and at most 1000 units a pixel', () => {
  assert.equal(measuringGrid(icon, 0).unitsPerPixel, 16);
  assert.equal(measuringGrid(icon, 2).unitsPerPixel, 100);
  assert.equal(measuringGrid(icon, 3).unitsPerPixel, 1000);
  // pathPrecision 10 on a 32 px icon writes 8 decimals: measured on a grid of 10⁸ units a pixel,
  // its curves were flattened into so many points that one conversion took 35 s.
  assert.equal(measuringGrid(icon, 8).unitsPerPixel, 1000);
});

test('a sliver is found and a piece that holds the width is kept, however fine the output', () => {
  const square = { fill: flat({ r: 0, g: 0, b: 0 }), opacity: 1, paths: [{ commands: [0, 1, 1, 1, 3], coords: [4, 4, 20, 4, 20, 20, 4, 20] }] };
  const sliver = { fill: flat({ r: 0, g: 0, b: 0 }), opacity: 1, paths: [{ commands: [0, 1, 1, 3], coords: [6, 24, 7.92, 24, 6, 24.15] }] };
  for (const decimals of [2, 8]) {
    const result = removeNarrowFeatures({ ...icon, shapes: [square, sliver] }, 0.2, decimals, false);
    assert.equal(result.removed, 1, `decimals ${decimals}`);
    assert.deepEqual(result.image.shapes, [square]);
  }
});

test('the quick test for a disc at a piece’s centre never decides otherwise than the offset', () => {
  // Random star-shaped outlines (some spiky, some with a hole at the centre) and widths, against
  // Clipper's offset alone, which isNarrowerThan falls back on when the centre holds no disc.
  let seed = 18;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const offsetSays = (paths: Paths64, width: number) => Clipper.inflatePaths(paths, -width / 2, JoinType.Round, EndType.Polygon).length === 0;
  let narrow = 0;
  for (let trial = 0; trial < 400; trial++) {
    const cx = 1000 + random() * 4000;
    const cy = 1000 + random() * 4000;
    const base = 20 + random() * 800;
    const spikes = random() < 0.5;
    const outline: Path64 = [];
    const vertices = 3 + Math.floor(random() * 40);
    for (let k = 0; k < vertices; k++) {
      const angle = (2 * Math.PI * k) / vertices;
      const radius = base * (spikes && k % 2 === 1 ? 0.05 + random() * 0.3 : 0.6 + random() * 0.4);
      outline.push({ x: Math.round(cx + radius * Math.cos(angle)), y: Math.round(cy + radius * Math.sin(angle)) });
    }
    const paths: Paths64 = [Clipper.isPositive(outline) ? outline : Clipper.reversePath(outline)];
    if (random() < 0.3) {
      const hole = [0, 1, 2, 3].map((k) => ({ x: Math.round(cx + base * 0.2 * Math.cos((k * Math.PI) / 2)), y: Math.round(cy + base * 0.2 * Math.sin((k * Math.PI) / 2)) }));
      paths.push(Clipper.isPositive(hole) ? Clipper.reversePath(hole) : hole);
    }
    const width = 10 + random() * base * 1.5;
    const expected = offsetSays(paths, width);
    if (expected) narrow++;
    assert.equal(isNarrowerThan(paths, width), expected, `trial ${trial}`);
  }
  // Both answers are exercised.
  assert.ok(narrow > 40 && narrow < 360, `${narrow} of 400 narrow`);
});
