import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Resvg } from '@resvg/resvg-js';
import { parseTracerSvg } from '../../../src/engine/trace/tracer-output.ts';
import { EngineError } from '../../../src/engine/types.ts';
import { countNodes, countPathNodes, writePathData, writeSvgDocument } from '../../../src/engine/write/svg.ts';

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

test('writePathData refuses a coordinate that is not a finite number rather than write NUL bytes', () => {
  const [shape] = parseTracerSvg('<svg><path d="M1 1 L3 1 L3 3 Z" fill="#000000"/></svg>');
  assert.ok(shape);
  const path = shape.paths[0];
  assert.ok(path);
  for (const broken of [Number.NaN, Number.POSITIVE_INFINITY]) {
    const coords = [...path.coords];
    coords[3] = broken;
    assert.throws(
      () => writePathData([{ ...path, coords }], { scaleX: 1, scaleY: 1, decimals: 2 }),
      (error: unknown) => error instanceof EngineError && error.kind === 'engine_failed',
    );
  }
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
  const { svg, nodeCount } = writeSvgDocument(
    { width: 300, height: 200, scaleX: 3, scaleY: 2, background: { r: 255, g: 255, b: 255 }, shapes },
    0,
  );
  assert.equal(nodeCount, countNodes(svg));
  assert.match(svg, /<path d="M0 0H300V200H0z" fill="#ffffff"\/>/);
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" version="1.1" viewBox="0 0 300 200" width="300" height="200">/);
  assert.match(svg, /fill="#aabbcc" fill-opacity="0.5"/);
  assert.doesNotMatch(svg, /<!--|transform=/);
});

test('writeSvgDocument writes gradient fills as definitions in the original pixel space', () => {
  const [shape] = parseTracerSvg('<svg><path d="M0 0 L10 0 L10 10 Z" fill="#000000"/></svg>');
  assert.ok(shape);
  shape.fill = {
    kind: 'linear',
    x1: 0,
    y1: 0,
    x2: 10,
    y2: 0,
    stops: [
      { offset: 0, color: { r: 255, g: 0, b: 0 }, opacity: 1 },
      { offset: 1, color: { r: 0, g: 0, b: 255 }, opacity: 0.5 },
    ],
  };
  const radial = parseTracerSvg('<svg><path d="M20 20 L30 20 L30 30 Z" fill="#000000"/></svg>')[0];
  assert.ok(radial);
  radial.fill = { kind: 'radial', cx: 25, cy: 25, r: 5, stops: [{ offset: 0, color: { r: 1, g: 2, b: 3 }, opacity: 1 }] };
  const { svg } = writeSvgDocument({ width: 60, height: 60, scaleX: 2, scaleY: 2, shapes: [shape, radial] }, 1);
  assert.match(
    svg,
    /<defs>\n<linearGradient id="g0" gradientUnits="userSpaceOnUse" x1="0" y1="0" x2="20" y2="0"><stop offset="0" stop-color="#ff0000"\/><stop offset="1" stop-color="#0000ff" stop-opacity="0.5"\/><\/linearGradient>/,
  );
  assert.match(svg, /<radialGradient id="g1" gradientUnits="userSpaceOnUse" cx="50" cy="50" r="10"><stop offset="0" stop-color="#010203"\/><\/radialGradient>\n<\/defs>/);
  assert.match(svg, /<path d="[^"]+" fill="url\(#g0\)"\/>/);
  assert.match(svg, /<path d="[^"]+" fill="url\(#g1\)"\/>/);
});

test('writeSvgDocument writes a soft edge as a blur filter in the original pixel space, over its shape\'s box and the blur\'s reach, and keeps blurred shapes apart', () => {
  const shapes = parseTracerSvg(
    '<svg><path d="M20 20 L30 20 L30 30 Z" fill="#102030"/><path d="M5 5 L15 5 L15 15 Z" fill="#102030"/><path d="M30 30 L40 30 L40 40 Z" fill="#102030"/><path d="M55 5 L56 5 L56 6 Z" fill="#405060"/><path d="M0 45 L10 45 L10 55 Z" fill="#708090"/></svg>',
  );
  const [soft, sharp, softer, speck, edge] = shapes;
  assert.ok(soft && sharp && softer && speck && edge);
  soft.blur = 1.5;
  softer.blur = 3;
  speck.blur = 10;
  edge.blur = 1.5;
  const { svg, nodeCount } = writeSvgDocument({ width: 120, height: 120, scaleX: 2, scaleY: 2, shapes }, 1);
  assert.equal(nodeCount, countNodes(svg));
  // Working pixels × the scale: deviations 3 and 6 in the document's pixels. Each filter covers its
  // shape's box (20 px) and four deviations beyond: a box's width on each side for 12 px, two for 24.
  assert.match(svg, /<filter id="b0" x="-1" y="-1" width="3" height="3"><feGaussianBlur stdDeviation="3"\/><\/filter>/);
  assert.match(svg, /<filter id="b1" x="-2" y="-2" width="5" height="5"><feGaussianBlur stdDeviation="6"\/><\/filter>/);
  // A speck of 2 px under a blur of 20 (sixteen boxes do not hold 80 px), and a shape whose region
  // would pass the picture's edge: the whole picture.
  assert.match(svg, /<filter id="b2" filterUnits="userSpaceOnUse" x="0" y="0" width="120" height="120"><feGaussianBlur stdDeviation="20"\/><\/filter>/);
  assert.match(svg, /<filter id="b3" filterUnits="userSpaceOnUse" x="0" y="0" width="120" height="120"><feGaussianBlur stdDeviation="3"\/><\/filter>/);
  // Five elements: the crisp shape is not joined to a blurred one of its colour.
  assert.equal(svg.match(/<path /g)?.length, 5);
  for (const id of ['b0', 'b1', 'b2', 'b3']) assert.equal(svg.match(new RegExp(`filter="url\\(#${id}\\)"`, 'g'))?.length, 1);
  // Drawn as the same picture as with every filter over the whole picture, where renderers draw
  // each blurred element on a canvas of the whole picture.
  const whole = svg.replace(/<filter id="(b\d)" [^>]*>/g, '<filter id="$1" filterUnits="userSpaceOnUse" x="0" y="0" width="120" height="120">');
  const boxed = new Resvg(svg).render().pixels;
  const everywhere = new Resvg(whole).render().pixels;
  let largest = 0;
  for (let i = 0; i < boxed.length; i++) largest = Math.max(largest, Math.abs((boxed[i] as number) - (everywhere[i] as number)));
  assert.ok(largest <= 1, `largest difference ${largest} of 255`);
});

test('writePathData writes a quadratic raised to a cubic as a quadratic, and a true cubic as a cubic', () => {
  // From (0, 0) with control (3, 6) to (6, 0): c1 = 2/3 of the way to the control from the start, c2 from the end.
  const raised = { commands: [0, 2], coords: [0, 0, 2, 4, 4, 4, 6, 0] };
  assert.equal(writePathData([raised], { scaleX: 1, scaleY: 1, decimals: 0 }).d, 'm0 0q3 6 6 0');
  const cubic = { commands: [0, 2], coords: [0, 0, 2, 4, 5, 4, 6, 0] };
  assert.equal(writePathData([cubic], { scaleX: 1, scaleY: 1, decimals: 0 }).d, 'm0 0c2 4 5 4 6 0');
});
