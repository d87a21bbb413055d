import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sniffFormat } from '../../../src/engine/analyse/decode.ts';

test('sniffFormat recognises PNG, JPEG and WebP from magic bytes only', () => {
  assert.equal(sniffFormat(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0])), 'png');
  assert.equal(sniffFormat(Buffer.from([0xff, 0xd8, 0xff, 0xe0])), 'jpeg');
  assert.equal(sniffFormat(Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1')), 'webp');
  assert.equal(sniffFormat(Buffer.from('GIF89a')), null);
  assert.equal(sniffFormat(Buffer.from('RIFF\x10\x00\x00\x00WAVE', 'latin1')), null);
  assert.equal(sniffFormat(Buffer.alloc(0)), null);
});

