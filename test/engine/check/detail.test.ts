// The detail check (src/engine/check/detail.ts): at the check's reduced size, fine hatching counts
// only by its tone, so grey blotches of the right tone score like the lines; on the image's most
// detailed crop at its own scale the lines win.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkSvg } from '../../../src/engine/check/check.ts';
import { detailFidelity, detailReference, DETAIL_SIDE } from '../../../src/engine/check/detail.ts';
import { fitToPixels } from '../../../src/engine/analyse/prepare.ts';
import { CHECK_PIXELS } from '../../../src/engine/convert.ts';

const SIDE = 1200;
/** Hatching: one dark row in three, in a band across the middle of a white page. */
const BAND = { top: 400, bottom: 800, left: 100, right: 1100 };

function hatchedPage(): Uint8Array {
  const rgba = new Uint8Array(SIDE * SIDE * 4).fill(255);
  for (let y = BAND.top; y < BAND.bottom; y += 3) {
    for (let x = BAND.left; x < BAND.right; x++) rgba.fill(0, (y * SIDE + x) * 4, (y * SIDE + x) * 4 + 3);
  }
  return rgba;
}

const svgOf = (body: string) => `<svg xmlns="http://www.w3.org/2000/svg" width="${SIDE}" height="${SIDE}" viewBox="0 0 ${SIDE} ${SIDE}"><rect width="${SIDE}" height="${SIDE}" fill="#fff"/>${body}</svg>`;

test('the detail check tells hatching from grey blotches of its tone, which the reduced check cannot', async () => {
  const rgba = hatchedPage();
  const rows: string[] = [];
  for (let y = BAND.top; y < BAND.bottom; y += 3) rows.push(`M${BAND.left} ${y}h${BAND.right - BAND.left}v1h-${BAND.right - BAND.left}z`);
  const lines = svgOf(`<path d="${rows.join('')}" fill="#000"/>`);
  // The band's mean tone (a third black) as flat grey blotches.
  const grey = Math.round(255 * Math.pow((2 / 3) * 1 + (1 / 3) * 0, 1 / 2.2));
  const blotches: string[] = [];
  for (let x = BAND.left; x < BAND.right; x += 40) blotches.push(`M${x} ${BAND.top}h32v${BAND.bottom - BAND.top}h-32z`);
  const blotched = svgOf(`<path d="${blotches.join('')}" fill="rgb(${grey},${grey},${grey})"/>`);

  const reduced = await fitToPixels({ rgba: Buffer.from(rgba), width: SIDE, height: SIDE }, CHECK_PIXELS);
  const facts = { kind: 'sketch', curveMode: 'spline', tracedScale: 1, pixelGrid: false } as const;
  const wholeLines = checkSvg(lines, reduced, facts).fidelity;
  const wholeBlotches = checkSvg(blotched, reduced, facts).fidelity;

  const detail = detailReference({ rgba, width: SIDE, height: SIDE }, CHECK_PIXELS);
  assert.ok(detail, 'a decode far finer than the check gets a detail crop');
  assert.equal(detail.crop.width, DETAIL_SIDE);
  assert.ok(detail.crop.top + detail.crop.height > BAND.top && detail.crop.top < BAND.bottom, `the crop lies on the hatching: ${JSON.stringify(detail.crop)}`);
  const detailLines = detailFidelity(lines, detail);
  const detailBlotches = detailFidelity(blotched, detail);
  assert.ok(detailLines > 0.95, `the lines drawn exactly score high at their scale: ${detailLines}`);
  assert.ok(detailLines - detailBlotches > 0.15, `lines ${detailLines} vs blotches ${detailBlotches} at the image's scale`);
  // What the detail check is for: at the reduced size the two are much closer (or the blotches ahead).
  assert.ok(wholeLines - wholeBlotches < (detailLines - detailBlotches) / 2, `reduced: lines ${wholeLines} vs blotches ${wholeBlotches}`);
});

test('no detail crop where the check already sees about every pixel', async () => {
  assert.equal(detailReference({ rgba: new Uint8Array(600 * 600 * 4), width: 600, height: 600 }, CHECK_PIXELS), undefined);
});
