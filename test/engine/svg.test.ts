import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sniffFormat } from '../../src/engine/decode.ts';
import {
  countNodes,
  countPathNodes,
  groupShapesByFill,
  parseTracerSvg,
  PathCommand,
  writePathData,
  writeSvgDocument,
} from '../../src/engine/svg.ts';

test('countPathNodes counts every segment endpoint once and Z none', () => {
  assert.equal(countPathNodes('M0 0L10 0L10 10Z'), 3);
  assert.equal(countPathNodes('m0 0h10v10h-10z'), 4);
  // implicit repeats: two line segments after the moveto
  assert.equal(countPathNodes('m0 0 10 0 0 10z'), 3);
  assert.equal(countPathNodes('M0 0C1 1 2 2 3 3 4 4 5 5 6 6Q1 1 2 2'), 4);
  assert.equal(countPathNodes('M0 0A5 5 0 0 1 10 10'), 2);
});

test('countNodes sums over all paths of a document', () => {
  const svg = '<svg><path d="M0 0H1V1z" fill="#000000"/><path d="m5 5 1 1" fill="#ffffff"/></svg>';
  assert.equal(countNodes(svg), 5);
});

test('parseTracerSvg bakes translate into coordinates and reads the fill', () => {
  const tracer =
    '<?xml version="1.0"?><!-- c --><svg width="10" height="10">' +
    '<path d="M0,0 L4,0 L4,4 Z " fill="#FEF115" transform="translate(2,3)"/></svg>';
  const [shape] = parseTracerSvg(tracer);
  assert.ok(shape);
  assert.deepEqual(shape.fill, { r: 0xfe, g: 0xf1, b: 0x15 });
  const { move, line, close } = PathCommand;
  assert.deepEqual(shape.paths, [{ commands: [move, line, line, close], coords: [2, 3, 6, 3, 6, 7] }]);
});

test('parseTracerSvg reads collinear cubics as lines and keeps real curves', () => {
  const tracer = '<svg><path d="M0 0 C22.11 0 44.22 0 67 0 C70 5 70 10 67 17 Z" fill="#000000"/></svg>';
  const { move, line, cubic, close } = PathCommand;
  const [straightened] = parseTracerSvg(tracer, 0.15)[0]?.paths ?? [];
  assert.deepEqual(straightened, { commands: [move, line, cubic, close], coords: [0, 0, 67, 0, 70, 5, 70, 10, 67, 17] });
  const [exact] = parseTracerSvg(tracer)[0]?.paths ?? [];
  assert.deepEqual(exact?.commands, [move, cubic, cubic, close], 'no tolerance: every cubic stays a cubic');
});

test('writePathData scales, rounds in absolute terms and writes compact relative commands', () => {
  const [shape] = parseTracerSvg('<svg><path d="M1 1 L3 1 L3 3 L1 3 Z M5 5 L6 6 Z" fill="#000000"/></svg>');
  assert.ok(shape);
  const { d, nodes } = writePathData(shape.paths, { scaleX: 2, scaleY: 2, decimals: 1 });
  assert.equal(d, 'm2 2h4v4h-4zm8 8 2 2z');
  assert.equal(nodes, 6);
  assert.equal(countPathNodes(d), 6);
});

test('writePathData writes the fewest characters: no leading zero, separators only where needed', () => {
  const [shape] = parseTracerSvg('<svg><path d="M0.25 0.5 L-1.75 0.5 L0.125 3 C0.5 0.5 1 2 3 3" fill="#000000"/></svg>');
  assert.ok(shape);
  const { d, nodes } = writePathData(shape.paths, { scaleX: 1, scaleY: 1, decimals: 2 });
  // '-' and a second '.' separate numbers by themselves; trailing zeros are dropped.
  assert.equal(d, 'm.25.5h-2l1.88 2.5c.37-2.5.87-1 2.87 0');
  assert.equal(nodes, countPathNodes(d));
});

test('writePathData leaves out subpaths that enclose nothing and lines that z draws', () => {
  const [shape] = parseTracerSvg('<svg><path d="M4 4 Z M0 0 L2 0 L2 2 L0 0 Z M9 9" fill="#000000"/></svg>');
  assert.ok(shape);
  assert.deepEqual(writePathData(shape.paths, { scaleX: 1, scaleY: 1, decimals: 0 }), { d: 'm0 0h2v2z', nodes: 3 });
});

test('writeSvgDocument writes SVG 1.1 with viewBox at the original size and lowercase fills', () => {
  const shapes = parseTracerSvg('<svg><path d="M0 0 L1 0 L1 1 Z" fill="#AABBCC"/></svg>');
  const first = shapes[0];
  assert.ok(first);
  first.opacity = 0.5;
  const { svg, nodeCount } = writeSvgDocument(shapes, {
    width: 300,
    height: 200,
    scaleX: 3,
    scaleY: 2,
    decimals: 0,
    background: { r: 255, g: 255, b: 255 },
  });
  assert.equal(nodeCount, countNodes(svg));
  assert.match(svg, /<path d="M0 0H300V200H0z" fill="#ffffff"\/>/);
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" version="1.1" viewBox="0 0 300 200" width="300" height="200">/);
  assert.match(svg, /fill="#aabbcc" fill-opacity="0.5"/);
  assert.doesNotMatch(svg, /<!--|transform=/);
});

test('sniffFormat recognises PNG, JPEG and WebP from magic bytes only', () => {
  assert.equal(sniffFormat(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0])), 'png');
  assert.equal(sniffFormat(Buffer.from([0xff, 0xd8, 0xff, 0xe0])), 'jpeg');
  assert.equal(sniffFormat(Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1')), 'webp');
  assert.equal(sniffFormat(Buffer.from('GIF89a')), null);
  assert.equal(sniffFormat(Buffer.from('RIFF\x10\x00\x00\x00WAVE', 'latin1')), null);
  assert.equal(sniffFormat(Buffer.alloc(0)), null);
});

test('groupShapesByFill joins same-coloured shapes only where paint order allows', () => {
  const shapes = parseTracerSvg(
    '<svg>' +
      '<path d="M0 0 L2 0 L2 2 Z" fill="#FF0000"/>' + // red A
      '<path d="M10 0 L12 0 L12 2 Z" fill="#00FF00"/>' + // green, far from both reds
      '<path d="M20 0 L22 0 L22 2 Z" fill="#FF0000"/>' + // red B: may join A
      '<path d="M30 0 L34 0 L34 4 Z" fill="#0000FF"/>' + // blue under red C
      '<path d="M31 0 L33 0 L33 2 Z" fill="#FF0000"/>' + // red C: touches blue, must stay above it
      '</svg>',
  );
  const grouped = groupShapesByFill(shapes);
  assert.deepEqual(
    grouped.map((shape) => [shape.fill.r, shape.fill.g, shape.fill.b, shape.paths.length]),
    [
      [255, 0, 0, 2],
      [0, 255, 0, 1],
      [0, 0, 255, 1],
      [255, 0, 0, 1],
    ],
  );
});
