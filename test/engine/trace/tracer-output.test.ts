import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PathCommand } from '../../../src/engine/geometry.ts';
import { parseTracerSvg } from '../../../src/engine/trace/tracer-output.ts';

test('parseTracerSvg bakes translate into coordinates and reads the fill', () => {
  const tracer =
    '<?xml version="1.0"?><!-- c --><svg width="10" height="10">' +
    '<path d="M0,0 L4,0 L4,4 Z " fill="#FEF115" transform="translate(2,3)"/></svg>';
  const [shape] = parseTracerSvg(tracer);
  assert.ok(shape);
  assert.deepEqual(shape.fill, { kind: 'flat', color: { r: 0xfe, g: 0xf1, b: 0x15 } });
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

test('parseTracerSvg: every path is moved by the tile offset (dx, dy), its own translate included', () => {
  const [shape] = parseTracerSvg('<svg><path d="M0 0 L4 0 L4 4 Z" fill="#102030" transform="translate(2,3)"/></svg>', 0, 100, 50);
  assert.ok(shape);
  assert.deepEqual(shape.paths[0]?.coords, [102, 53, 106, 53, 106, 57]);
});
