// Silhouettes against transparency: the anti-aliased rim of a shape is made opaque in the
// shape's own colour, while what is not a rim (soft translucency, a faint halo of another hue)
// keeps its alpha, and coverage under a sixteenth is cleared.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FRINGE_ALPHA, opaqueSilhouette, premultiply, TRANSPARENT_MIXTURE_HUE } from '../../../src/engine/segment/silhouette.ts';
import { drawnRgba, type RgbaColour } from '../fixtures.ts';

const SIZE = 32;

function pixel(rgba: Buffer, x: number, y: number, width = SIZE): RgbaColour {
  const i = (y * width + x) * 4;
  return [rgba[i] as number, rgba[i + 1] as number, rgba[i + 2] as number, rgba[i + 3] as number];
}

/** A grey card, opaque, from (8, 8) to (23, 23), with a one-pixel frame around it in the given colour and alpha. */
function cardWithFrame(frame: RgbaColour): Buffer {
  const rgba = Buffer.alloc(SIZE * SIZE * 4);
  for (let y = 7; y <= 24; y++) {
    for (let x = 7; x <= 24; x++) {
      const onFrame = x === 7 || x === 24 || y === 7 || y === 24;
      rgba.set(onFrame ? frame : [128, 128, 128, 255], (y * SIZE + x) * 4);
    }
  }
  return rgba;
}

test('an anti-aliased disc on transparency gets its rim opaque in its own colour; coverage under 1/16 is cleared', () => {
  const colour: RgbaColour = [200, 40, 60, 255];
  const disc = drawnRgba(SIZE, SIZE, (x, y) => (Math.hypot(x - 16.2, y - 15.7) < 9.3 ? colour : null));
  const before = Buffer.from(disc);
  const out = opaqueSilhouette(disc, SIZE, SIZE);
  assert.deepEqual(disc, before, 'the input is not changed');
  let rim = 0;
  let cleared = 0;
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const [r, g, b, alpha] = pixel(disc, x, y);
      const [or, og, ob, outAlpha] = pixel(out, x, y);
      assert.deepEqual([or, og, ob], [r, g, b], `(${x}, ${y}) keeps its colour`);
      if (alpha === 0 || alpha === 255) assert.equal(outAlpha, alpha, `(${x}, ${y}) was clear or solid and stays so`);
      else if (alpha < 16) {
        assert.equal(outAlpha, 0, `(${x}, ${y}) at alpha ${alpha} is cleared`);
        cleared++;
      } else {
        assert.equal(outAlpha, 255, `(${x}, ${y}) at alpha ${alpha} is made opaque`);
        rim++;
      }
    }
  }
  // A rim about 2π·9.3 ≈ 58 pixels round, a few of them with too little coverage to keep.
  assert.ok(rim > 45 && rim < 75, `${rim} rim pixels made opaque`);
  assert.ok(cleared > 0, 'some rim pixels cover under a sixteenth');
});

test('a faint frame of another hue stays translucent; in the shape\'s hue, or a quarter opaque, it becomes opaque', () => {
  const probe = (frame: RgbaColour) => pixel(opaqueSilhouette(cardWithFrame(frame), SIZE, SIZE), 15, 7);
  const faint = FRINGE_ALPHA / 2;
  // A dark halo (a resampling artefact): made opaque it would draw a dark line round the card.
  assert.deepEqual(probe([32, 32, 32, faint]), [32, 32, 32, faint]);
  // The same faint coverage in the card's hue (within TRANSPARENT_MIXTURE_HUE) is the card's edge.
  const near = TRANSPARENT_MIXTURE_HUE / 3 - 1;
  assert.deepEqual(probe([128 + near, 128 - near, 128 + near, faint]), [128 + near, 128 - near, 128 + near, 255]);
  // Just past the hue distance it stays translucent.
  const far = TRANSPARENT_MIXTURE_HUE / 3 + 1;
  assert.deepEqual(probe([128 + far, 128 - far, 128 + far, faint]), [128 + far, 128 - far, 128 + far, faint]);
  // At a quarter opaque or more a frame of another hue is a frame: opaque, in its own colour.
  assert.deepEqual(probe([32, 32, 32, FRINGE_ALPHA]), [32, 32, 32, 255]);
  assert.deepEqual(probe([200, 30, 30, 180]), [200, 30, 30, 255]);
  // Under a sixteenth, whatever the hue, it is cleared.
  assert.equal(probe([128, 128, 128, 15])[3], 0);
  assert.equal(probe([32, 32, 32, 15])[3], 0);
  assert.equal(probe([32, 32, 32, 16])[3], 16);
});

test('soft translucency that is not a rim between clear and solid keeps its alpha', () => {
  const rgba = Buffer.alloc(SIZE * SIZE * 4);
  // A translucent glow on its own (nothing solid next to it) …
  for (let y = 2; y < 8; y++) for (let x = 2; x < 10; x++) rgba.set([250, 220, 90, 90], (y * SIZE + x) * 4);
  // … and a solid block with a shadow band three pixels wide on its right, then transparency.
  for (let y = 14; y < 28; y++) {
    for (let x = 12; x < 20; x++) rgba.set([30, 90, 200, 255], (y * SIZE + x) * 4);
    for (let x = 20; x < 23; x++) rgba.set([0, 0, 0, 100], (y * SIZE + x) * 4);
  }
  const out = opaqueSilhouette(rgba, SIZE, SIZE);
  for (let y = 2; y < 8; y++) for (let x = 2; x < 10; x++) assert.equal(pixel(out, x, y)[3], 90, `glow (${x}, ${y})`);
  for (let y = 15; y < 27; y++) {
    // Beside the block but not beside transparency; beside transparency but not the block.
    assert.equal(pixel(out, 20, y)[3], 100, `shadow (20, ${y})`);
    assert.equal(pixel(out, 21, y)[3], 100, `shadow (21, ${y})`);
    assert.equal(pixel(out, 22, y)[3], 100, `shadow (22, ${y})`);
  }
});

test('premultiply scales colour by alpha and rounds; alpha is kept', () => {
  const rgba = Buffer.from([200, 100, 50, 128, 255, 255, 255, 0, 10, 20, 30, 255, 255, 0, 51, 51, 150, 3, 254, 200]);
  // 150 × 200 / 255 = 117.6 → 118; 254 × 200 / 255 = 199.2 → 199.
  assert.deepEqual([...premultiply(rgba)], [100, 50, 25, 128, 0, 0, 0, 0, 10, 20, 30, 255, 51, 0, 10, 51, 118, 2, 199, 200]);
});
