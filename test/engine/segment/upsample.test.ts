// The region map on the finer grid that is traced: each edge is placed where the fine image
// crosses between the colours of its two sides, each edge pixel gives each side the share of
// its fine pixels that it covers, thin lines keep their width, and a shape on transparency ends
// where the resampled alpha falls below one half.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { segmentArtwork, type Segmentation } from '../../../src/engine/segment/segment.ts';
import { opaqueSilhouette, premultiply } from '../../../src/engine/segment/silhouette.ts';
import { upsampleLabels } from '../../../src/engine/segment/upsample.ts';
import { drawnRgba, posterised, segmentationOf, type RgbaColour } from '../fixtures.ts';

const RED: RgbaColour = [220, 60, 40, 255];
const BLUE: RgbaColour = [40, 90, 200, 255];
const LIGHT: RgbaColour = [245, 240, 230, 255];
const DARK: RgbaColour = [20, 20, 30, 255];

type Picture = (x: number, y: number) => RgbaColour | null;

/** The two fine images the engine uses: drawn at the fine size (a large original reduced), or resampled up from the small one (bicubic). */
async function fineImages(picture: Picture, width: number, height: number, factor: number): Promise<[string, Buffer][]> {
  const drawn = drawnRgba(width * factor, height * factor, (x, y) => picture(x / factor, y / factor));
  const small = drawnRgba(width, height, picture);
  const resampled = await sharp(small, { raw: { width, height, channels: 4 } }).resize(width * factor, height * factor, { kernel: 'cubic', fit: 'fill' }).raw().toBuffer();
  return [
    ['drawn at the fine size', premultiply(drawn)],
    ['resampled bicubic', premultiply(resampled)],
  ];
}

/** In each fine row, how far (in source pixels) the run of `label` from the left edge reaches. */
function edgePerRow(labels: Int32Array, fineWidth: number, label: number, factor: number): number[] {
  const edges: number[] = [];
  for (let at = 0; at < labels.length; at += fineWidth) {
    let run = 0;
    while (run < fineWidth && labels[at + run] === label) run++;
    edges.push(run / factor);
  }
  return edges;
}

/**
 * A segmentation whose regions carry their exact colours: red left of `edge`, blue right of it,
 * each pixel in the region that covers most of it. (Segmented images carry the mixed edge pixels
 * in their regions' sums too; see the end-to-end test below.)
 */
function exactSides(width: number, height: number, onRed: (x: number, y: number) => boolean): Segmentation {
  return segmentationOf(width, height, (x, y) => {
    const covered = (drawnRgba(1, 1, (u, v) => (onRed(x + u, y + v) ? RED : null))[3] as number) / 255;
    return covered >= 0.5 ? [0, RED] : [1, BLUE];
  });
}

test('a vertical edge lands where it was drawn, to a fine pixel, and each edge pixel gives each side its coverage', async () => {
  const width = 24;
  const height = 4;
  const factor = 4;
  for (const edge of [10.1, 10.3, 10.5, 10.7, 10.9]) {
    const picture: Picture = (x) => (x < edge ? RED : BLUE);
    const segmentation = exactSides(width, height, (x) => x < edge);
    const source = premultiply(drawnRgba(width, height, picture));
    const covered = (drawnRgba(width, 1, (x) => (x < edge ? RED : null))[10 * 4 + 3] as number) / 255;
    for (const [name, fine] of await fineImages(picture, width, height, factor)) {
      const labels = upsampleLabels(segmentation, source, fine, factor);
      assert.equal(labels.length, width * height * factor * factor);
      const rows = edgePerRow(labels, width * factor, 0, factor);
      for (const [row, reach] of rows.entries()) assert.ok(Math.abs(reach - edge) <= 0.2, `edge at ${edge}, ${name}: row ${row} reaches ${reach}`);
      // Column 10's block of 16 fine pixels: red gets round(coverage × 16) of them (the
      // drawing's coverage, in eighths).
      const red = rows.reduce((sum, reach) => sum + (reach - 10) * factor, 0) / height;
      assert.equal(red, Math.round(covered * factor * factor), `edge at ${edge}, ${name}: red fine pixels per block`);
      // Right of the edge nothing is red.
      for (let i = 0; i < labels.length; i++) if ((i % (width * factor)) / factor >= 11) assert.equal(labels[i], 1);
    }
  }
});

test('a slanted edge: each edge pixel splits by its coverage, and each fine row\'s edge follows the line', async () => {
  const width = 32;
  const height = 16;
  const factor = 4;
  const onRed = (x: number, y: number) => x < 9.2 + 0.55 * y;
  const picture: Picture = (x, y) => (onRed(x, y) ? RED : BLUE);
  const segmentation = exactSides(width, height, onRed);
  const coverage = drawnRgba(width, height, (x, y) => (onRed(x, y) ? RED : null));
  const source = premultiply(drawnRgba(width, height, picture));
  for (const [name, fine] of await fineImages(picture, width, height, factor)) {
    const labels = upsampleLabels(segmentation, source, fine, factor);
    const fineWidth = width * factor;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const covered = (coverage[(y * width + x) * 4 + 3] as number) / 255;
        if (covered === 0 || covered === 1) continue;
        let red = 0;
        for (let fy = y * factor; fy < (y + 1) * factor; fy++) for (let fx = x * factor; fx < (x + 1) * factor; fx++) if (labels[fy * fineWidth + fx] === 0) red++;
        assert.ok(Math.abs(red - covered * factor * factor) <= 1, `${name}: pixel (${x}, ${y}) is ${(covered * 100).toFixed(0)} % red, ${red} of 16 fine pixels`);
      }
    }
    // The edge of each fine row is within a third of a source pixel of the line at the row's centre.
    edgePerRow(labels, fineWidth, 0, factor).forEach((reach, row) => {
      const line = 9.2 + 0.55 * ((row + 0.5) / factor);
      assert.ok(Math.abs(reach - line) <= 1 / 3, `${name}: fine row ${row} reaches ${reach}, the line is at ${line.toFixed(2)}`);
    });
  }
});

test('segmented end to end: an edge at x = 10.3 lands within a quarter pixel', async () => {
  const width = 24;
  const height = 6;
  const factor = 4;
  const picture: Picture = (x) => (x < 10.3 ? RED : BLUE);
  const rgba = drawnRgba(width, height, picture);
  const segmentation = segmentArtwork(rgba, posterised(rgba, 16), width, height);
  assert.equal(segmentation.count, 2);
  for (const [name, fine] of await fineImages(picture, width, height, factor)) {
    const rows = edgePerRow(upsampleLabels(segmentation, premultiply(rgba), fine, factor), width * factor, segmentation.labels[0] as number, factor);
    const mean = rows.reduce((sum, reach) => sum + reach, 0) / rows.length;
    assert.ok(Math.abs(mean - 10.3) <= 0.25, `${name}: the edge lands at ${mean.toFixed(3)} on average (rows ${rows.join(', ')})`);
  }
});

test('thin lines keep their width and their ink: a line a pixel wide, and one 0.6 pixel wide', async () => {
  const width = 32;
  const height = 8;
  const factor = 4;
  for (const [from, to] of [[12, 13], [12.2, 12.8]] as const) {
    const picture: Picture = (x) => (x >= from && x < to ? DARK : LIGHT);
    const rgba = drawnRgba(width, height, picture);
    const segmentation = segmentArtwork(rgba, posterised(rgba, 16), width, height);
    const line = segmentation.labels[12] as number;
    assert.ok(line !== segmentation.labels[0] && line !== segmentation.labels[width - 1], 'the line is a region of its own');
    for (const [name, fine] of await fineImages(picture, width, height, factor)) {
      const labels = upsampleLabels(segmentation, premultiply(rgba), fine, factor);
      for (let fy = 0; fy < height * factor; fy++) {
        const row = labels.subarray(fy * width * factor, (fy + 1) * width * factor);
        const onLine = [...row.keys()].filter((fx) => row[fx] === line);
        // One source pixel, column 12: the segmented line's colour is the pixel's, so its area is the pixel's.
        assert.deepEqual(onLine, [48, 49, 50, 51], `line ${from}–${to}, ${name}: fine row ${fy}`);
      }
    }
  }
});

test('an opaque disc on transparency ends where the resampled alpha falls below one half', async () => {
  const size = 32;
  const factor = 4;
  const [cx, cy, r] = [16.2, 15.7, 9.3];
  const picture: Picture = (x, y) => (Math.hypot(x - cx, y - cy) < r ? RED : null);
  const rgba = drawnRgba(size, size, picture);
  const silhouette = opaqueSilhouette(rgba, size, size);
  const segmentation = segmentArtwork(silhouette, posterised(silhouette, 16), size, size);
  const disc = segmentation.labels[16 * size + 16] as number;
  assert.ok(disc >= 0);
  for (const [name, fine] of await fineImages(picture, size, size, factor)) {
    const labels = upsampleLabels(segmentation, premultiply(rgba), fine, factor);
    let area = 0;
    const fineSize = size * factor;
    for (let fy = 0; fy < fineSize; fy++) {
      for (let fx = 0; fx < fineSize; fx++) {
        const label = labels[fy * fineSize + fx] as number;
        assert.ok(label === disc || label === -1, `${name}: (${fx}, ${fy}) is ${label}`);
        const d = Math.hypot((fx + 0.5) / factor - cx, (fy + 0.5) / factor - cy);
        if (d < r - 0.35) assert.equal(label, disc, `${name}: (${fx}, ${fy}) ${d.toFixed(2)} from the centre is inside`);
        if (d > r + 0.35) assert.equal(label, -1, `${name}: (${fx}, ${fy}) ${d.toFixed(2)} from the centre is outside`);
        if (label === disc) area++;
      }
    }
    const expected = Math.PI * r * r;
    assert.ok(Math.abs(area / factor ** 2 - expected) / expected < 0.03, `${name}: area ${(area / factor ** 2).toFixed(1)} for ${expected.toFixed(1)}`);
  }
});

test('against transparency the resampled alpha decides, inside one shape and where two shapes meet its silhouette', () => {
  // A square, red on the left and blue on the right, segmented as two regions (rims made opaque);
  // the fine image, from a larger original, shows its top edge at y = 4.4 and a slit half a
  // pixel wide down its middle, at 10.25 ≤ x < 10.75, that the segmentation did not keep.
  const size = 20;
  const factor = 4;
  const inSquare = (x: number, y: number) => x >= 4 && x < 16 && y >= 4 && y < 16;
  const segmentation = segmentationOf(size, size, (x, y) => (inSquare(x, y) ? (x < 8 ? [0, RED] : [1, BLUE]) : [-1, [0, 0, 0, 0]]));
  const picture: Picture = (x, y) => (!inSquare(x, y) || y < 4.4 || (x >= 10.25 && x < 10.75) ? null : x < 8 ? RED : BLUE);
  const fine = premultiply(drawnRgba(size * factor, size * factor, (x, y) => picture(x / factor, y / factor)));
  const labels = upsampleLabels(segmentation, premultiply(drawnRgba(size, size, picture)), fine, factor);
  const fineSize = size * factor;
  const at = (fx: number, fy: number) => labels[fy * fineSize + fx] as number;
  // The slit, in rows where every source pixel around it is blue: its fine columns 41 and 42 are clear.
  for (let fy = 24; fy < 56; fy++) {
    assert.deepEqual([40, 41, 42, 43].map((fx) => at(fx, fy)), [1, -1, -1, 1], `slit, fine row ${fy}`);
  }
  // The top edge where red meets blue (source pixels 7 and 8 of row 4 touch red, blue and
  // transparency): fine row 16 is clear, row 17 (40 % covered) too, row 18 is red or blue by x.
  for (let fx = 28; fx < 36; fx++) {
    assert.equal(at(fx, 16), -1, `fine (${fx}, 16)`);
    assert.equal(at(fx, 17), -1, `fine (${fx}, 17), 40 % covered`);
    assert.equal(at(fx, 18), fx < 32 ? 0 : 1, `fine (${fx}, 18)`);
  }
});

test('a region a pixel wide keeps its line far from the few pixels its colour model was fitted on', async () => {
  // A page's frame: a block at the left whose grey shades steeply (its inner pixels, where its
  // model is fitted), and a line a pixel wide along the page's foot, between the light page and
  // its dark shadow. Extrapolated along the line, the block's model runs far outside every colour
  // the frame has, and the line went to the page and the shadow.
  const width = 48;
  const height = 12;
  const factor = 4;
  const line = 6;
  const grey = (value: number): RgbaColour => [value, value, value, 255];
  const paint = (x: number, y: number): [number, RgbaColour] => {
    if (x < 6 && y < line) return [1, grey(100 + 16 * x)];
    if (y < line) return [0, LIGHT];
    if (y === line) return [1, grey(140)];
    return [2, DARK];
  };
  const segmentation = segmentationOf(width, height, paint);
  const source = drawnRgba(width, height, (x, y) => paint(Math.floor(x), Math.floor(y))[1]);
  const fine = await sharp(source, { raw: { width, height, channels: 4 } }).resize(width * factor, height * factor, { kernel: 'cubic', fit: 'fill' }).raw().toBuffer();
  const labels = upsampleLabels(segmentation, premultiply(source), premultiply(fine), factor);
  for (let x = 12; x < width; x++) {
    let onLine = 0;
    for (let fy = line * factor; fy < (line + 1) * factor; fy++) if (labels[fy * width * factor + x * factor + 1] === 1) onLine++;
    assert.ok(onLine >= factor / 2, `column ${x}: the line holds ${onLine} of the ${factor} fine rows of its pixel`);
  }
});

test('a faint line a pixel wide stays one piece on the fine grid, to its end (a star\'s arm)', async () => {
  // A bright core 6 pixels square with an arm a pixel wide, fading from 45 % to 27 % of the core's
  // contrast: the arm's pixels cover a third of a fine block or so. Picked pixel by pixel they
  // fell on the fine grid as diagonal neighbours, which trace as specks.
  const width = 24;
  const height = 12;
  const ground: RgbaColour = [40, 70, 110, 255];
  const light: RgbaColour = [200, 210, 230, 255];
  const mix = (t: number): RgbaColour => ground.map((value, c) => (c === 3 ? 255 : value + t * ((light[c] as number) - value))) as RgbaColour;
  const inCore = (x: number, y: number) => x >= 4 && x < 10 && y >= 3 && y < 9;
  const inArm = (x: number, y: number) => y === 5 && x >= 10 && x < 20;
  const colourAt = (x: number, y: number): RgbaColour => (inCore(x, y) ? light : inArm(x, y) ? mix(0.45 - 0.02 * (x - 10)) : ground);
  const segmentation = segmentationOf(width, height, (x, y) => [inCore(x, y) || inArm(x, y) ? 1 : 0, colourAt(x, y)]);
  const rgba = drawnRgba(width, height, (x, y) => colourAt(Math.floor(x), Math.floor(y)), 1);
  for (const factor of [2, 4]) {
    const fine = premultiply(await sharp(rgba, { raw: { width, height, channels: 4 } }).resize(width * factor, height * factor, { kernel: 'cubic', fit: 'fill' }).raw().toBuffer());
    const labels = upsampleLabels(segmentation, premultiply(rgba), fine, factor);
    const fineWidth = width * factor;
    // The star's fine pixels reached from the core's centre through side neighbours.
    const reached = new Uint8Array(labels.length);
    const queue = [(6 * factor) * fineWidth + 6 * factor];
    reached[queue[0] as number] = 1;
    while (queue.length > 0) {
      const at = queue.pop() as number;
      const [fx, fy] = [at % fineWidth, Math.floor(at / fineWidth)];
      for (const [nx, ny] of [[fx - 1, fy], [fx + 1, fy], [fx, fy - 1], [fx, fy + 1]] as const) {
        const next = ny * fineWidth + nx;
        if (nx < 0 || ny < 0 || nx >= fineWidth || ny >= height * factor || reached[next] || labels[next] !== 1) continue;
        reached[next] = 1;
        queue.push(next);
      }
    }
    let farthest = 0;
    let specks = 0;
    for (let at = 0; at < labels.length; at++) {
      if (labels[at] !== 1) continue;
      if (reached[at]) farthest = Math.max(farthest, (at % fineWidth) + 1);
      else specks++;
    }
    assert.equal(specks, 0, `factor ${factor}: the arm's fine pixels apart from the star`);
    assert.ok(farthest >= 19 * factor, `factor ${factor}: the arm reaches ${farthest / factor} of 20`);
  }
});

test('two lines a pixel wide side by side keep their own pixels: an outline and the highlight inside it', async () => {
  // An icon's frame: a dark outline, a light highlight inside it, then the icon's fill, each a
  // pixel wide along a straight edge. Every pixel there meets three regions, where edges were
  // placed on the resampled image alone, whose ramp across the two lines the third colour pulls:
  // the highlight came out a quarter of a pixel off, or a quarter wider.
  const width = 24;
  const height = 6;
  const factor = 4;
  const OUTLINE: RgbaColour = [10, 12, 18, 255];
  const HIGHLIGHT: RgbaColour = [138, 139, 168, 255];
  const FILL: RgbaColour = [29, 30, 53, 255];
  const picture: Picture = (x) => (x < 8 ? LIGHT : x < 9 ? OUTLINE : x < 10 ? HIGHLIGHT : FILL);
  const rgba = drawnRgba(width, height, picture);
  const segmentation = segmentationOf(width, height, (x) => (x < 8 ? [0, LIGHT] : x < 9 ? [1, OUTLINE] : x < 10 ? [2, HIGHLIGHT] : [3, FILL]));
  for (const [name, fine] of await fineImages(picture, width, height, factor)) {
    const labels = upsampleLabels(segmentation, premultiply(rgba), fine, factor);
    for (let fy = 0; fy < height * factor; fy++) {
      const row = [...labels.subarray(fy * width * factor, (fy + 1) * width * factor)];
      assert.deepEqual([1, 2].map((line) => row.flatMap((label, fx) => (label === line ? [fx] : []))), [[32, 33, 34, 35], [36, 37, 38, 39]], `${name}: fine row ${fy}`);
    }
  }
});
