// The TEST watermark on the geometry model: drawn over everything, inside the picture, in the
// model's working coordinates whatever the scale, and the same marks in every writer's output.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flat, PathCommand, type VectorImage } from '../../../src/engine/geometry.ts';
import { WATERMARK_RED, withWatermark } from '../../../src/engine/write/watermark.ts';
import { writeSvgDocument } from '../../../src/engine/write/svg.ts';

const square = (x: number, y: number, size: number) => ({
  commands: [PathCommand.move, PathCommand.line, PathCommand.line, PathCommand.line, PathCommand.close],
  coords: [x, y, x + size, y, x + size, y + size, x, y + size],
});

test('adds the halo and the red letters last, inside the picture, at any working scale', () => {
  for (const [width, height, scale] of [
    [300, 200, 1],
    [1200, 800, 4],
    [40, 1000, 0.5],
  ] as const) {
    const image: VectorImage = {
      width,
      height,
      scaleX: scale,
      scaleY: scale,
      shapes: [{ fill: flat({ r: 0, g: 0, b: 0 }), opacity: 1, paths: [square(0, 0, 10)] }],
    };
    const marked = withWatermark(image);
    assert.equal(marked.shapes.length, 3);
    assert.deepEqual(marked.shapes[0], image.shapes[0], 'the picture is untouched, under the marks');
    const [halo, red] = marked.shapes.slice(1);
    assert.deepEqual(red?.fill, flat({ ...WATERMARK_RED }));
    assert.ok(red && red.opacity < 1 && halo && halo.opacity < 1, 'translucent: the picture shows through');
    assert.ok((red?.paths.length ?? 0) >= 11, 'at least one whole TEST (11 strokes)');
    for (const shape of [halo, red]) {
      for (const path of shape?.paths ?? []) {
        for (let i = 0; i < path.coords.length; i += 2) {
          const x = (path.coords[i] as number) * scale;
          const y = (path.coords[i + 1] as number) * scale;
          assert.ok(x >= -1e-9 && x <= width + 1e-9 && y >= -1e-9 && y <= height + 1e-9, `(${x}, ${y}) inside ${width}×${height}`);
        }
      }
    }
    const { svg } = writeSvgDocument(marked, 2, { groupBy: 'none', disjoint: false });
    assert.match(svg, /fill="#d6001c"/);
  }
});
