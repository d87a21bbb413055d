import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Resvg } from '@resvg/resvg-js';
import { convertImage } from '../../../src/engine/convert.ts';
import { DEFAULT_PARAMS } from '../../../src/engine/params.ts';
import { fitSoftEdges, gaussianBlur } from '../../../src/engine/paint/soft-edges.ts';
import { premultiply } from '../../../src/engine/segment/silhouette.ts';
import { renderSvg } from '../fixtures.ts';

const SIZE = 64;

/** A dark red tile over its shadow: the shadow a rectangle under a Gaussian blur of `deviation` px, or crisp (0). */
function tileSvg(deviation: number): string {
  const filter = deviation > 0 ? `<filter id="s" x="-50%" y="-50%" width="200%" height="200%"><feGaussianBlur stdDeviation="${deviation}"/></filter>` : '';
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}"><defs>${filter}</defs>` +
    `<rect x="14" y="14" width="40" height="40" fill="#501000" fill-opacity="0.6"${deviation > 0 ? ' filter="url(#s)"' : ''}/>` +
    '<rect x="10" y="10" width="40" height="40" fill="#b01a10"/></svg>'
  );
}

/** Labels by hand: the opaque tile 0, the visible shadow 1 (alpha at least 8), the rest clear. */
function labelled(rgba: Buffer): { labels: Int32Array; premultiplied: Buffer } {
  const labels = new Int32Array(SIZE * SIZE).fill(-1);
  for (let i = 0; i < labels.length; i++) {
    const alpha = rgba[i * 4 + 3] as number;
    if (alpha >= 250) labels[i] = 0;
    else if (alpha >= 8) labels[i] = 1;
  }
  return { labels, premultiplied: premultiply(rgba) };
}

test('a shadow drawn under a blur is fitted as a blurred shape of about its width and opacity', async () => {
  const { rgba } = await renderSvg(tileSvg(2));
  const { labels, premultiplied } = labelled(rgba);
  const edges = fitSoftEdges(labels, SIZE, SIZE, premultiplied, [false, true], [true, false]);
  assert.equal(edges.length, 1);
  const [edge] = edges;
  assert.ok(edge);
  assert.deepEqual(edge.regions, [1]);
  assert.ok(edge.sigma >= 1.5 && edge.sigma <= 3, `sigma ${edge.sigma}`);
  assert.ok(Math.abs(edge.opacity - 0.6) < 0.15, `opacity ${edge.opacity}`);
  // The shadow's colour, not the tile's.
  assert.ok(edge.color.r < 0x70 && edge.color.g < 0x20, JSON.stringify(edge.color));
});

test('a translucent shape with a crisp edge is left flat', async () => {
  const { rgba } = await renderSvg(tileSvg(0));
  const { labels, premultiplied } = labelled(rgba);
  assert.deepEqual(fitSoftEdges(labels, SIZE, SIZE, premultiplied, [false, true], [true, false]), []);
});

test('gaussianBlur keeps the total of what it spreads, and spreads it symmetrically', () => {
  const values = new Float64Array(21 * 21);
  values[10 * 21 + 10] = 1;
  const blurred = gaussianBlur(values, 21, 21, 2);
  const total = blurred.reduce((sum, value) => sum + value, 0);
  assert.ok(Math.abs(total - 1) < 1e-9);
  assert.ok(Math.abs((blurred[10 * 21 + 13] as number) - (blurred[13 * 21 + 10] as number)) < 1e-12);
  assert.ok((blurred[10 * 21 + 10] as number) > (blurred[10 * 21 + 12] as number));
});

/** Alpha along the row through the tile's middle, from the tile's right edge outwards. */
function alphaProfile(rgba: Buffer, width: number, y: number, from: number, to: number): number[] {
  const out: number[] = [];
  for (let x = from; x < to; x++) out.push((rgba[(y * width + x) * 4 + 3] as number) / 255);
  return out;
}

test('a soft shadow comes back soft: a blur filter, a fade without a hard step, checked against the flat regions', async () => {
  const png = Buffer.from(new Resvg(tileSvg(2.5)).render().asPng());
  const result = await convertImage({ image: png, params: DEFAULT_PARAMS }, { maxInputPixels: 1e8 });
  assert.match(result.svg, /<feGaussianBlur stdDeviation="[\d.]+"\/>/);
  assert.match(result.svg, /filter="url\(#b0\)"/);
  // The flat regions were traced too, and did not score clearly higher (the check's margin for
  // soft edges, which it compares at 64 px, where bands one pixel wide are nearly exact).
  const hard = result.check.attempts.find((a) => a.reason === 'soft-edges');
  assert.ok(hard, JSON.stringify(result.check.attempts));
  assert.ok(result.fidelity >= hard.fidelity - 0.015 && result.fidelity > 0.9, JSON.stringify(result.check.attempts));
  // Rendered 4× larger, the shadow beyond the tile's right edge fades: no step between
  // neighbouring pixels larger than a hard band's edge would make.
  const scale = 4;
  const drawn = new Resvg(result.svg, { fitTo: { mode: 'width', value: SIZE * scale } }).render();
  const rgba = Buffer.from(drawn.pixels);
  const profile = alphaProfile(rgba, SIZE * scale, 32 * scale, 50 * scale + 2, 62 * scale);
  const steps = profile.slice(1).map((value, i) => Math.abs(value - (profile[i] as number)));
  assert.ok(Math.max(...steps) < 0.1, `largest step ${Math.max(...steps).toFixed(3)}`);
  assert.ok((profile[0] as number) > 0.3 && (profile[profile.length - 1] as number) < 0.05, profile.map((a) => a.toFixed(2)).join(' '));
});
