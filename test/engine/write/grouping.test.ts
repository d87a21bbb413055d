import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupShapesByFill } from '../../../src/engine/write/grouping.ts';
import { parseTracerSvg } from '../../../src/engine/trace/tracer-output.ts';

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
    grouped.map(({ fill, paths }) => (fill.kind === 'flat' ? [fill.color.r, fill.color.g, fill.color.b, paths.length] : [])),
    [
      [255, 0, 0, 2],
      [0, 255, 0, 1],
      [0, 0, 255, 1],
      [255, 0, 0, 1],
    ],
  );
});
