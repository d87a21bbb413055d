import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_PARAMS } from '../../../src/engine/params.ts';
import { PathSimplifyMode } from '@neplex/vectorizer';
import { buildTracerConfig, decimalPlaces, lengthThreshold, RAW_OUTLINE_FACTORS, regionMapTracerConfig, resolveCurveMode, runTracer } from '../../../src/engine/trace/vtracer.ts';
import { parseTracerSvg } from '../../../src/engine/trace/tracer-output.ts';

test('pathPrecision counts significant digits of a coordinate', () => {
  assert.equal(decimalPlaces(4, 400), 1);
  assert.equal(decimalPlaces(4, 1400), 0);
  assert.equal(decimalPlaces(4, 32), 2);
  assert.equal(decimalPlaces(1, 400), 0);
  assert.equal(decimalPlaces(10, 6000), 6);
});

test('segmentLength spans VTracer’s useful length range 3.5–10', () => {
  assert.equal(lengthThreshold(1), 3.5);
  assert.equal(lengthThreshold(20), 10);
});

test('curveMode auto: only pixel art pixel-exact; photos polygons, the rest (dense artwork too) splines', () => {
  assert.equal(resolveCurveMode('auto', 'pixelart'), 'none');
  assert.equal(resolveCurveMode('auto', 'photo'), 'polygon');
  assert.equal(resolveCurveMode('auto', 'logo'), 'spline');
  assert.equal(resolveCurveMode('auto', 'sketch'), 'spline');
  assert.equal(resolveCurveMode('spline', 'pixelart'), 'spline');
  assert.equal(resolveCurveMode('none', 'logo'), 'none');
});

test('filterSpeckle 0 keeps every patch of photos and artwork, drops specks of line art', () => {
  const at = (kind: 'photo' | 'logo' | 'sketch') =>
    buildTracerConfig(DEFAULT_PARAMS, { kind, curveMode: 'polygon', workingScale: 0.5 }).filterSpeckle;
  assert.equal(at('photo'), 0);
  assert.equal(at('logo'), 0);
  assert.equal(at('sketch'), 2);
  const chosen = buildTracerConfig({ ...DEFAULT_PARAMS, filterSpeckle: 6 }, { kind: 'photo', curveMode: 'polygon', workingScale: 0.5 });
  assert.equal(chosen.filterSpeckle, 3, 'a chosen filterSpeckle applies to photos too, in source pixels');
});

test('tracer config: binary for line art, exact colours for pixel art, user angles passed through', () => {
  const params = { ...DEFAULT_PARAMS, cornerThreshold: 90, spliceThreshold: 30, filterSpeckle: 8 };
  const sketch = buildTracerConfig(params, { kind: 'sketch', curveMode: 'spline', workingScale: 0.5 });
  assert.equal(sketch.colorMode, 1);
  assert.equal(sketch.cornerThreshold, 90);
  assert.equal(sketch.spliceThreshold, 30);
  assert.equal(sketch.filterSpeckle, 4, 'filterSpeckle is in source pixels, scaled to the working size');
  const pixelArt = buildTracerConfig(DEFAULT_PARAMS, { kind: 'pixelart', curveMode: 'none', workingScale: 1 });
  assert.equal(pixelArt.colorMode, 0);
  assert.equal(pixelArt.layerDifference, 0);
  assert.equal(pixelArt.filterSpeckle, 0);
  assert.equal(pixelArt.mode, 0);
  const coarse = buildTracerConfig({ ...DEFAULT_PARAMS, layerDifference: 5 }, { kind: 'logo', curveMode: 'spline', workingScale: 1 });
  const fine = buildTracerConfig({ ...DEFAULT_PARAMS, layerDifference: 0 }, { kind: 'logo', curveMode: 'spline', workingScale: 1 });
  assert.ok(coarse.layerDifference > fine.layerDifference);
});

/** A map of one background colour with a vertical band `bandWidth` pixels wide in another, traced with `config`: whether the band comes back. */
async function bandSurvives(bandWidth: number, config: ReturnType<typeof regionMapTracerConfig>): Promise<boolean> {
  const width = 120;
  const height = 120;
  const pixels = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const band = x >= 40 && x < 40 + bandWidth && y >= 10 && y < 110;
      pixels.set(band ? [16, 16, 16, 255] : [244, 244, 244, 255], i);
    }
  }
  return (await runTracer(pixels, width, height, config)).includes('#101010');
}

test('the region map keeps a region a segmented pixel wide: no speckle filter on a grid under 3 times finer', async () => {
  // The tracer's speckle filter also drops every cluster at most 2 pixels wide, however long.
  assert.equal(await bandSurvives(2, { ...regionMapTracerConfig(DEFAULT_PARAMS, 'polygon', 1), filterSpeckle: 1 }), false);
  for (const factor of [1, 2, 3, 4, 8]) {
    assert.ok(await bandSurvives(factor, regionMapTracerConfig(DEFAULT_PARAMS, 'polygon', factor)), `a band ${factor} px wide at factor ${factor}`);
  }
  // From 3 times finer, specks of the finer grid are still filtered.
  assert.ok(regionMapTracerConfig(DEFAULT_PARAMS, 'polygon', 3).filterSpeckle >= 1);
  assert.equal(regionMapTracerConfig(DEFAULT_PARAMS, 'polygon', 2).filterSpeckle, 0);
});

test('the region map is traced as raw outlines on grids 4 to 8 times finer, as the tracer\'s polygons elsewhere', async () => {
  for (const factor of [1, 2, 3, 12, 16]) assert.equal(regionMapTracerConfig(DEFAULT_PARAMS, 'spline', factor).mode, PathSimplifyMode.Polygon, `factor ${factor}`);
  for (let factor = RAW_OUTLINE_FACTORS.min; factor <= RAW_OUTLINE_FACTORS.max; factor++) assert.equal(regionMapTracerConfig(DEFAULT_PARAMS, 'spline', factor).mode, PathSimplifyMode.None, `factor ${factor}`);
  assert.equal(regionMapTracerConfig(DEFAULT_PARAMS, 'polygon', 4).mode, PathSimplifyMode.Polygon, 'asked for polygons, the tracer draws them');
  // A band 4 traced pixels high whose lower side dips a pixel at both ends (a highlight inside an
  // icon's outline, where the map meets the outline's corners): cleaned of staircases, its lower
  // side runs through the dips, a traced pixel low along its whole length; raw, it stays.
  const width = 120;
  const height = 40;
  const pixels = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const band = x >= 10 && x < 110 && ((y >= 12 && y < 16) || (y === 16 && (x < 14 || x >= 106)));
      pixels.set(band ? [138, 139, 168, 255] : [29, 30, 53, 255], (y * width + x) * 4);
    }
  }
  const lowerSide = async (factor: number): Promise<number[]> => {
    const svg = await runTracer(pixels, width, height, regionMapTracerConfig(DEFAULT_PARAMS, 'spline', factor));
    const band = parseTracerSvg(svg, 0.15).find((shape) => shape.fill.kind === 'flat' && shape.fill.color.r === 138);
    const coords = band?.paths[0]?.coords ?? [];
    // The heights at which the outline runs along x = 60.
    const ys: number[] = [];
    for (let i = 0; i < coords.length; i += 2) {
      const j = (i + 2) % coords.length;
      const [ax, ay, bx, by] = [coords[i], coords[i + 1], coords[j], coords[j + 1]] as [number, number, number, number];
      if (ay === by && Math.min(ax, bx) < 60 && Math.max(ax, bx) > 60) ys.push(ay);
    }
    return ys.sort((a, b) => a - b);
  };
  assert.deepEqual(await lowerSide(1), [12, 17], 'the tracer\'s polygon');
  assert.deepEqual(await lowerSide(4), [12, 16], 'the raw outline');
});
