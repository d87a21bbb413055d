import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { getPriority } from 'node:os';
import { after, test } from 'node:test';
import { DEFAULT_PARAMS } from '../../../src/engine/params.ts';
import { createEngine, WORKER_NICENESS } from '../../../src/engine/runtime/pool.ts';
import { EngineError, type EngineErrorKind } from '../../../src/engine/types.ts';
import { corpusImage } from '../corpus.ts';

const OPTIONS = { workers: 1, queueLimit: 2, timeoutMs: 30_000, maxInputPixels: 100_000_000 };

function isEngineError(kind: EngineErrorKind) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof EngineError, `expected an EngineError, got ${String(error)}`);
    assert.equal(error.kind, kind);
    return true;
  };
}

const engine = createEngine(OPTIONS);
after(() => engine.close());

const small = { image: corpusImage('logo/flag_br_noto.png'), params: { ...DEFAULT_PARAMS } };
const heavy = { image: corpusImage('sketch/piranesi_carceri_etching_1000.png'), params: { ...DEFAULT_PARAMS, mode: 'photo' as const } };

test('the first request converts while the worker is still starting', async () => {
  const result = await engine.convert(small);
  assert.equal(result.width, 720);
  assert.match(result.svg, /^<svg /);
  assert.deepEqual(engine.load(), { running: 0, queued: 0, workers: 1 });
});

test('a conversion over its time limit is killed, and the next one converts', async () => {
  await assert.rejects(engine.convert(heavy, { timeoutMs: 5 }), isEngineError('timeout'));
  const result = await engine.convert(small);
  assert.equal(result.height, 504);
});

test('corrupt bytes come back as invalid_image from the worker', async () => {
  await assert.rejects(
    engine.convert({ image: Buffer.from('\x89PNG\r\n\x1a\nnot really', 'latin1'), params: { ...DEFAULT_PARAMS } }),
    isEngineError('invalid_image'),
  );
});

test('requests beyond the queue limit are refused at once with queue_full', async () => {
  const running = engine.convert(small);
  const waiting = [engine.convert(small), engine.convert(small)];
  await assert.rejects(engine.convert(small), isEngineError('queue_full'));
  assert.equal(engine.load().queued, 2);
  const results = await Promise.all([running, ...waiting]);
  assert.equal(results.length, 3);
});

test('a worker that dies mid-conversion fails that job with engine_failed and is replaced', async () => {
  const crashing = createEngine(OPTIONS, {
    workerPath: new URL('./crashing-worker.ts', import.meta.url).pathname,
  });
  try {
    await assert.rejects(crashing.convert(small), isEngineError('engine_failed'));
    await assert.rejects(crashing.convert(small), isEngineError('engine_failed'));
    assert.equal(crashing.load().running, 0);
  } finally {
    await crashing.close();
  }
});

test('close rejects waiting conversions with closed and refuses new ones', async () => {
  const closing = createEngine({ ...OPTIONS, queueLimit: 5 });
  const pending = [closing.convert(small), closing.convert(small), closing.convert(small)];
  const settled = Promise.allSettled(pending);
  await closing.close();
  for (const outcome of await settled) {
    assert.equal(outcome.status, 'rejected');
    isEngineError('closed')(outcome.status === 'rejected' ? outcome.reason : null);
  }
  await assert.rejects(closing.convert(small), isEngineError('closed'));
  assert.equal(closing.load().workers, 0);
});

test('when workers cannot start, waiting conversions fail with engine_failed instead of hanging', async () => {
  const broken = createEngine(OPTIONS, { workerPath: new URL('./broken-worker.ts', import.meta.url).pathname });
  try {
    await assert.rejects(broken.convert(small), isEngineError('engine_failed'));
  } finally {
    await broken.close();
  }
});

test('workers run at a lower CPU priority than the server', async () => {
  await engine.convert(small);
  // The workers are this process's children running worker.ts; ps prints each one's niceness.
  const niceness = execFileSync('ps', ['-o', 'ni=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => /engine\/runtime\/worker\.(ts|js)/.test(line))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
  assert.ok(niceness.length >= 1, 'a worker process is running');
  assert.ok(niceness.every((value) => value === WORKER_NICENESS + getPriority()), `niceness ${niceness.join(', ')}`);
});
