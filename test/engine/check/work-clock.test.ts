// The retraces' time limits count the work a conversion did, not the wall clock alone
// (src/engine/check/work-clock.ts): on a busy machine the same retraces start as on a quiet one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { startWorkClock } from '../../../src/engine/check/work-clock.ts';
import { convertImage } from '../../../src/engine/convert.ts';
import { DEFAULT_PARAMS } from '../../../src/engine/params.ts';
import { corpusImage as corpusFile } from '../corpus.ts';

const LIMITS = { maxInputPixels: 100_000_000 };

test('the work clock reads the wall clock, or the CPU time when that is less', () => {
  let wall = 1_000;
  let cpu = 500;
  const clock = startWorkClock(
    () => wall,
    () => cpu,
  );
  // Quiet: the tracer's, libvips' and the collector's threads add up to more than the wall clock.
  wall += 2_000;
  cpu += 2_600;
  assert.equal(clock.elapsedMs(), 2_000);
  // Busy: other processes had the cores while the wall clock ran on.
  wall += 8_000;
  cpu += 400;
  assert.equal(clock.elapsedMs(), 3_000);
});

test('on a busy machine the same retraces start as on a quiet one, and the same trace is kept', async () => {
  // A grey cartoon elephant on black is taken for ink, and traced again as artwork, which wins.
  const elephant = await sharp(corpusFile('clipart/kenney_animal_elephant.png')).flatten({ background: '#000000' }).png().toBuffer();
  const request = { image: elephant, params: DEFAULT_PARAMS };
  const quiet = await convertImage(request, { ...LIMITS, untimed: true });
  const retraces = (result: typeof quiet) => result.check.attempts.map((a) => `${a.kind} ${a.reason}`);
  assert.ok(quiet.check.attempts.length > 1, retraces(quiet).join(', '));
  // A wall clock 1000 times as fast: the conversion gets one time slice in a thousand (so that
  // even a machine ten times as fast as ours spends the first 5 s before the first trace ends).
  const busyWall = () => performance.now() * 1_000;
  const busy = await convertImage(request, { ...LIMITS, startClock: () => startWorkClock(busyWall) });
  assert.deepEqual(retraces(busy), retraces(quiet));
  assert.equal(busy.svg, quiet.svg);
  assert.equal(busy.chosen.mode, 'logo');
  // Counted on that wall clock alone, as the limits once were, no second opinion would start.
  const wallOnly = await convertImage(request, { ...LIMITS, startClock: () => startWorkClock(busyWall, busyWall) });
  assert.deepEqual(retraces(wallOnly), retraces(quiet).slice(0, 1));
  assert.equal(wallOnly.chosen.mode, 'sketch');
});
