// The passes on the region graph, on label maps drawn here: neighbours and boundary lengths,
// merges cheapest first within the tolerance (flat, then smooth), merges of fragments whose
// boundary is worth more than the error they add, outlines in pieces joined, specks absorbed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { find } from '../../../src/engine/segment/components.ts';
import { meanOf, MOMENT_STRIDE } from '../../../src/engine/segment/moments.ts';
import { absorbSpecks, buildGraph, joinThinChains, mergeSmoothRegions, type RegionGraph } from '../../../src/engine/segment/regions.ts';
import { DEFAULT_SEGMENT_OPTIONS, type Segmentation } from '../../../src/engine/segment/segment.ts';
import { segmentationOf, type RgbaColour } from '../fixtures.ts';

type Drawn = Segmentation & { graph: RegionGraph };

/** A label map and the moment sums of its regions, from a label and a straight colour for each pixel. */
function regionsOf(width: number, height: number, paint: (x: number, y: number) => [number, RgbaColour]): Drawn {
  const segmentation = segmentationOf(width, height, paint);
  return { ...segmentation, graph: buildGraph(segmentation.labels, segmentation.count, width, height) };
}

/** The regions' groups after merging, as sorted lists of the original regions. */
function groups(graph: RegionGraph): number[][] {
  const byRoot = new Map<number, number[]>();
  for (let region = 0; region < graph.parent.length; region++) {
    const root = find(graph.parent, region);
    byRoot.set(root, [...(byRoot.get(root) ?? []), region]);
  }
  return [...byRoot.values()].sort((a, b) => (a[0] as number) - (b[0] as number));
}

const grey = (level: number): RgbaColour => [level, level, level, 255];

test('buildGraph: neighbours with the length of their common boundary, diagonal contacts included, transparency left out', () => {
  // 0 1
  // 1 0
  // . 2
  const labels = Int32Array.from([0, 1, 1, 0, -1, 2]);
  const { neighbours, parent } = buildGraph(labels, 3, 2, 3);
  // Two edges across, two down; the diagonals join pixels of one region.
  assert.deepEqual([...(neighbours[0] as Map<number, number>)].sort(), [[1, 4], [2, 1]]);
  // Region 1 touches 2 only at a corner (the pixel at the left of the middle row).
  assert.deepEqual([...(neighbours[1] as Map<number, number>)].sort(), [[0, 4], [2, 1]]);
  assert.deepEqual([...(neighbours[2] as Map<number, number>)].sort(), [[0, 1], [1, 1]]);
  assert.deepEqual([...parent], [0, 1, 2]);
});

test('merges go cheapest first: of three grey stripes, the two closest merge and the merged mean then refuses the third', () => {
  // Greys 100, 106 and 114: each pair is within tolerance on its own, but once 100 and 106 are
  // one region (mean 103) the 114 stripe is too far. Merging 106 and 114 first would leave 100 alone.
  const stripes = [100, 106, 114];
  const drawn = regionsOf(30, 10, (x) => [Math.floor(x / 10), grey(stripes[Math.floor(x / 10)] as number)]);
  mergeSmoothRegions(drawn.graph, drawn.sums, 4, 0, true);
  assert.deepEqual(groups(drawn.graph), [[0, 1], [2]]);
  // The mirror image: 114, 108, 100 → 114 and 108 merge first.
  const mirrored = [114, 108, 100];
  const other = regionsOf(30, 10, (x) => [Math.floor(x / 10), grey(mirrored[Math.floor(x / 10)] as number)]);
  mergeSmoothRegions(other.graph, other.sums, 4, 0, true);
  assert.deepEqual(groups(other.graph), [[0, 1], [2]]);
  // The merged region's sums are the sums of its parts.
  const kept = find(drawn.graph.parent, 0);
  assert.deepEqual(meanOf(drawn.sums, kept * MOMENT_STRIDE), [103, 103, 103, 255]);
});

test('the flat pass leaves a gradient in bands, the smooth pass joins them; a step between flat halves stays in both', () => {
  // Eight bands four pixels wide across a ramp of 5 levels per pixel.
  const ramp = regionsOf(32, 16, (x) => [Math.floor(x / 4), [50 + 5 * x, 120, 200 - 4 * x, 255]]);
  mergeSmoothRegions(ramp.graph, ramp.sums, 3, DEFAULT_SEGMENT_OPTIONS.boundaryWorth, true);
  assert.equal(groups(ramp.graph).length, 8, 'flat models do not explain neighbouring bands');
  mergeSmoothRegions(ramp.graph, ramp.sums, 3, DEFAULT_SEGMENT_OPTIONS.boundaryWorth, false);
  assert.equal(groups(ramp.graph).length, 1, 'one linear model explains them all');

  const step = regionsOf(32, 16, (x) => (x < 16 ? [0, grey(80)] : [1, grey(140)]));
  mergeSmoothRegions(step.graph, step.sums, 3, DEFAULT_SEGMENT_OPTIONS.boundaryWorth, true);
  mergeSmoothRegions(step.graph, step.sums, 3, DEFAULT_SEGMENT_OPTIONS.boundaryWorth, false);
  assert.equal(groups(step.graph).length, 2);
});

test('fragments merge when the error they add is worth less than their common boundary', () => {
  // Two 1 × 2 pieces side by side, 10 levels apart: 300 of squared error, against 4 contacts.
  const pieces = () => regionsOf(2, 2, (x) => [x, grey(x === 0 ? 90 : 100)]);
  const withBoundary = pieces();
  mergeSmoothRegions(withBoundary.graph, withBoundary.sums, 1, 100, true);
  assert.equal(groups(withBoundary.graph).length, 1, 'worth 400 against 300 added');
  const cheaper = pieces();
  mergeSmoothRegions(cheaper.graph, cheaper.sums, 1, 50, true);
  assert.equal(groups(cheaper.graph).length, 2, 'worth 200 against 300 added');
});

test('outline pieces: thin neighbours of similar colour join, a thin piece of another hue stays', () => {
  // A line one pixel tall across a white ground: dark grey, lighter grey (a part the line covers
  // less of), then red.
  const drawn = regionsOf(20, 9, (x, y) => {
    if (y !== 4 || x < 2 || x >= 18) return [0, grey(250)];
    if (x < 8) return [1, grey(60)];
    if (x < 13) return [2, grey(110)];
    return [3, [200, 40, 40, 255]];
  });
  joinThinChains(drawn.graph, drawn.sums, drawn.labels, drawn.width, drawn.height);
  assert.deepEqual(groups(drawn.graph), [[0], [1, 2], [3]]);
});

test('outline pieces end to end in an icon: two paints stay apart, one paint partly covered joins', () => {
  // A line one pixel tall across a white ground, in two pieces whose colours differ by 95 and
  // 142 (sums over RGB), both within the chain tolerance.
  const line = (first: RgbaColour, second: RgbaColour, separatePaints: boolean) => {
    const drawn = regionsOf(20, 9, (x, y) => {
      if (y !== 4 || x < 2 || x >= 18) return [0, grey(255)];
      return x < 10 ? [1, first] : [2, second];
    });
    joinThinChains(drawn.graph, drawn.sums, drawn.labels, drawn.width, drawn.height, separatePaints);
    return groups(drawn.graph);
  };
  // Orange, then red: no blend of the orange with the white it lies on. In an icon, two shapes (a
  // crust's line and a pepperoni's rim at 32 px); elsewhere one outline, as before.
  const orange: RgbaColour = [200, 100, 30, 255];
  const red: RgbaColour = [215, 30, 40, 255];
  assert.deepEqual(line(orange, red, true), [[0], [1], [2]]);
  assert.deepEqual(line(orange, red, false), [[0], [1, 2]]);
  // Blue, then the same blue covering 70 % of its pixels (blended with the white): one line.
  const blue = [30, 60, 200] as const;
  const partly = blue.map((value) => Math.round(0.7 * value + 0.3 * 255));
  assert.deepEqual(line([...blue, 255], [partly[0] as number, partly[1] as number, partly[2] as number, 255], true), [[0], [1, 2]]);
});

test('outline pieces: a short thin piece along a silhouette becomes part of the shape; a whole frame stays a frame', () => {
  // A blue square on transparency (region 1), with a grey frame one pixel wide round it (2), or
  // only a dash of that grey, three pixels long, on its top edge.
  const square = (x: number, y: number) => x >= 6 && x < 16 && y >= 6 && y < 16;
  const frame = (x: number, y: number) => !square(x, y) && x >= 5 && x < 17 && y >= 5 && y < 17;
  const paint = (dash: boolean) => (x: number, y: number): [number, RgbaColour] => {
    if (square(x, y)) return [1, [40, 80, 200, 255]];
    if (dash ? y === 5 && x >= 9 && x < 12 : frame(x, y)) return [2, [150, 150, 150, 255]];
    return [0, [0, 0, 0, 0]];
  };
  const framed = regionsOf(22, 22, paint(false));
  joinThinChains(framed.graph, framed.sums, framed.labels, framed.width, framed.height);
  assert.deepEqual(groups(framed.graph), [[0], [1], [2]]);
  const dashed = regionsOf(22, 22, paint(true));
  joinThinChains(dashed.graph, dashed.sums, dashed.labels, dashed.width, dashed.height);
  assert.deepEqual(groups(dashed.graph), [[0], [1, 2]]);
});

test('outline pieces side by side: a dark outline and the light rim inside it stay two lines; a line and its partly covered pixels join', () => {
  // A frame: transparency (0), a dark outline one pixel wide (1), a light rim one pixel wide inside
  // it (2), a dark blue fill (3). The rim is lighter than the outline and the fill on either side
  // of it, so it is no blend of them: two lines along one edge, as icons draw a frame.
  const ring = (x: number, y: number, inset: number) =>
    x >= 4 + inset && x < 36 - inset && y >= 4 + inset && y < 36 - inset && !(x >= 5 + inset && x < 35 - inset && y >= 5 + inset && y < 35 - inset);
  const framed = (rim: RgbaColour): Drawn => {
    const drawn = regionsOf(40, 40, (x, y) => {
      if (ring(x, y, 0)) return [1, [10, 12, 20, 255]];
      if (ring(x, y, 1)) return [2, rim];
      if (x >= 6 && x < 34 && y >= 6 && y < 34) return [3, [29, 34, 56, 255]];
      return [0, [0, 0, 0, 0]];
    });
    joinThinChains(drawn.graph, drawn.sums, drawn.labels, drawn.width, drawn.height);
    return drawn;
  };
  assert.deepEqual(groups(framed([45, 50, 72, 255]).graph), [[0], [1], [2], [3]]);
  // The same frame whose inner row is the outline blended half and half with the fill (a line a
  // pixel and a half wide): one outline.
  assert.deepEqual(groups(framed([20, 23, 38, 255]).graph), [[0], [1, 2], [3]]);
});

test('outline pieces: a faint strip beside a solid bar stays apart, a shadow or the bar partly covering pixels; strips alike in alpha join', () => {
  // On transparency (label 0, clear): a dark bar a pixel wide (1) and beside it a strip a pixel
  // wide (2), both 10 pixels long (short pieces of one outline join whatever lies beside them). A
  // shadow's strip is black and a third opaque: another paint lying along the bar (a railing's
  // shadow between its bars, joined to them, filled the gaps). The bar's own colour a third opaque
  // stays apart too: joined, the opaque bar would be drawn translucent and blurred, where apart it
  // is drawn solid beside a faint strip, as the pixels are.
  const pair = (bar: RgbaColour, strip: RgbaColour) => {
    const drawn = regionsOf(12, 20, (x, y) => {
      if (y >= 5 && y < 15 && x === 5) return [1, bar];
      if (y >= 5 && y < 15 && x === 6) return [2, strip];
      return [0, [0, 0, 0, 0]];
    });
    joinThinChains(drawn.graph, drawn.sums, drawn.labels, drawn.width, drawn.height);
    return groups(drawn.graph);
  };
  assert.deepEqual(pair([24, 24, 24, 255], [0, 0, 0, 85]), [[0], [1], [2]]);
  assert.deepEqual(pair([24, 24, 24, 255], [24, 24, 24, 85]), [[0], [1], [2]]);
  // A translucent line's pieces, partly covered or not, are one line.
  assert.deepEqual(pair([24, 24, 24, 170], [24, 24, 24, 85]), [[0], [1, 2]]);
  assert.deepEqual(pair([24, 24, 24, 255], [24, 24, 24, 200]), [[0], [1, 2]]);
});

test('outline pieces: an icon’s dark frame stays opaque beside the drop shadow along its lower side', () => {
  // A 128 px icon's frame (Tango's system monitor): a near-black outline a pixel wide (1) around a
  // dark blue panel (2), and under its lower side a shadow two pixels deep (3), near-black too and
  // a third opaque, so no shadow by its colour. Joined to the shadow, the outline's mean alpha fell
  // to 0.77 and the whole frame was drawn as a blurred soft edge, on every side.
  const drawn = regionsOf(40, 40, (x, y) => {
    const inside = x >= 4 && x < 36 && y >= 4 && y < 34;
    const core = x >= 5 && x < 35 && y >= 5 && y < 33;
    if (inside && !core) return [1, [10, 14, 21, 255]];
    if (core) return [2, [28, 39, 59, 255]];
    if (x >= 4 && x < 36 && (y === 34 || y === 35)) return [3, [18, 18, 18, 80]];
    return [0, [0, 0, 0, 0]];
  });
  joinThinChains(drawn.graph, drawn.sums, drawn.labels, drawn.width, drawn.height);
  assert.deepEqual(groups(drawn.graph), [[0], [1], [2], [3]]);
  assert.ok((meanOf(drawn.sums, 1 * MOMENT_STRIDE)[3] as number) > 250, 'the frame is opaque');
});

test('specks join the neighbour that explains them best, unless none is close enough; larger regions are not specks', () => {
  // A field split into a dark left half (0) and a light right half (1), with a region of one or
  // more pixels (2) on the boundary, touching both.
  const field = (speck: RgbaColour, length = 1) =>
    regionsOf(12, 12, (x, y) => {
      if (y === 6 && x >= 6 && x < 6 + length) return [2, speck];
      return x < 6 ? [0, grey(100)] : [1, grey(160)];
    });
  const options = DEFAULT_SEGMENT_OPTIONS;
  const light = field(grey(150));
  absorbSpecks(light.graph, light.sums, options);
  assert.deepEqual(groups(light.graph), [[0], [1, 2]], 'nearer the light side');
  const dark = field(grey(118));
  absorbSpecks(dark.graph, dark.sums, options);
  assert.deepEqual(groups(dark.graph), [[0, 2], [1]], 'nearer the dark side');
  // Green stands out from both: it stays, like a pupil or a highlight.
  const green = field([40, 220, 40, 255]);
  absorbSpecks(green.graph, green.sums, options);
  assert.deepEqual(groups(green.graph), [[0], [1], [2]]);
  // Three pixels are not a speck at speckPixels 2, but are at 3.
  const long = field(grey(150), 3);
  absorbSpecks(long.graph, long.sums, options);
  assert.equal(groups(long.graph).length, 3);
  absorbSpecks(long.graph, long.sums, { ...options, speckPixels: 3 });
  assert.deepEqual(groups(long.graph), [[0], [1, 2]]);
});
