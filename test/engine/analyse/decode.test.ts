import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { decodeImage, sniffFormat } from '../../../src/engine/analyse/decode.ts';
import { greyscalePhoto, pixelSprite } from '../fixtures.ts';

test('sniffFormat recognises PNG, JPEG and WebP from magic bytes only', () => {
  assert.equal(sniffFormat(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0])), 'png');
  assert.equal(sniffFormat(Buffer.from([0xff, 0xd8, 0xff, 0xe0])), 'jpeg');
  assert.equal(sniffFormat(Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1')), 'webp');
  assert.equal(sniffFormat(Buffer.from('GIF89a')), null);
  assert.equal(sniffFormat(Buffer.from('RIFF\x10\x00\x00\x00WAVE', 'latin1')), null);
  assert.equal(sniffFormat(Buffer.alloc(0)), null);
});


test('pixel art enlarged past the first decode is decoded at its own grid, every source pixel kept', async () => {
  const native = await pixelSprite(400, 7);
  const enlarged = await pixelSprite(400, 7, 4); // 1600 × 1600: over the 2 MP a PNG is first decoded at
  const decoded = await decodeImage(enlarged, { maxInputPixels: 100_000_000, maxWorkingPixels: 2_000_000 });
  assert.deepEqual(decoded.enlargement, { width: 4, height: 4 });
  assert.deepEqual([decoded.width, decoded.height, decoded.originalWidth, decoded.originalHeight], [400, 400, 1600, 1600]);
  const { data } = await sharp(native).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  assert.ok(data.equals(decoded.rgba), 'the decode is the sprite itself');
});

test('an image that is not an enlargement is decoded reduced as before', async () => {
  const photo = await greyscalePhoto(1800, 1350, 2);
  const decoded = await decodeImage(await sharp(photo).png().toBuffer(), { maxInputPixels: 100_000_000, maxWorkingPixels: 1_000_000 });
  assert.equal(decoded.enlargement, undefined);
  assert.ok(decoded.width < 1800, "reduced to the budget");
  // A plain band along the top proves nothing: its blocks are not taken for an enlargement.
  const banded = await sharp({ create: { width: 2000, height: 1200, channels: 3, background: '#204080' } })
    .composite([{ input: await sharp(photo).resize(2000, 800).png().toBuffer(), left: 0, top: 400 }])
    .png()
    .toBuffer();
  assert.equal((await decodeImage(banded, { maxInputPixels: 100_000_000, maxWorkingPixels: 1_000_000 })).enlargement, undefined);
});
