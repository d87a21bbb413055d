// Runs the test files one at a time in a random order, so no test can lean on another having run
// before it. `node --test` sorts the files it is given, so the order is set here through
// node:test's run(). The seed is printed first and last; TEST_SEED=<seed> replays that order.
//
//   node --import tsx scripts/run-tests.ts [path …] [--except path …]
//   (files or folders under test/; default: all; --except leaves a file or folder out)
//
// The test files inherit this process's `--import tsx`.
import { randomInt } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { run } from 'node:test';
import { spec, tap } from 'node:test/reporters';

/**
 * node:test's timeout, so that a hang fails instead of stalling CI. Node 20 applies it to each
 * test file as a whole (nodejs/node#57656; checked on 20.20), Node 24 to each test (checked on
 * 24.21), so it is set above the slowest file: test/cli/cli.test.ts took 212 s in a full run on 2 cores with the
 * load average at 12; the slowest test, the fuzz run, stops itself at 300 s. The runner prints
 * the slowest file and test at the end of each run.
 */
export const TEST_TIMEOUT_MS = 600_000;

/** Every `*.test.ts` under `root`, sorted, so a seed names the same order on every machine. */
export function testFiles(root: string): string[] {
  if (statSync(root).isFile()) return [root];
  const found: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) found.push(...testFiles(path));
    else if (entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found.sort();
}

/** mulberry32: a small seeded generator, enough to shuffle a file list reproducibly. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Fisher–Yates with the seeded generator. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = generator(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

interface TestEvent {
  name: string;
  nesting: number;
  file?: string;
  todo?: boolean | string;
  details?: { duration_ms?: number; type?: string };
}

function seedFromEnvironment(): number {
  const given = process.env.TEST_SEED;
  if (given === undefined || given === '') return randomInt(1, 2 ** 31);
  if (!/^\d+$/.test(given) || Number(given) >= 2 ** 32) throw new Error(`TEST_SEED must be an integer from 0 to 2^32 - 1, not "${given}"`);
  return Number(given);
}

/** The paths given, and those after `--except` (files or folders whose tests are left out). */
function pathArguments(args: readonly string[]): { paths: string[]; except: string[] } {
  const paths: string[] = [];
  const except: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--except') {
      const path = args[++i];
      if (path === undefined) throw new Error('--except needs a path');
      except.push(path);
    } else paths.push(args[i] as string);
  }
  return { paths, except };
}

function main(): void {
  const { paths, except } = pathArguments(process.argv.slice(2));
  const left = new Set(except.flatMap((path) => testFiles(resolve(path))));
  const files = [...new Set((paths.length > 0 ? paths : ['test']).flatMap((path) => testFiles(resolve(path))))].filter((file) => !left.has(file)).sort();
  if (files.length === 0) throw new Error(`no *.test.ts under ${paths.join(', ')}`);
  const seed = seedFromEnvironment();
  const order = shuffled(files, seed);
  const replay = `TEST_SEED=${seed} npm run test:node`;
  process.stdout.write(`# test order: seed ${seed} (replay: ${replay})\n`);
  for (const file of order) process.stdout.write(`#   ${relative(process.cwd(), file)}\n`);

  const stream = run({ files: order, concurrency: 1, timeout: TEST_TIMEOUT_MS });
  // Top-level durations summed per file, and the slowest single test: what the timeout must clear.
  const fileMs = new Map<string, number>();
  let slowest = { name: '', ms: 0 };
  const timed = (event: TestEvent) => {
    const ms = event.details?.duration_ms ?? 0;
    if (event.nesting === 0 && event.file) fileMs.set(event.file, (fileMs.get(event.file) ?? 0) + ms);
    if (event.details?.type !== 'suite' && ms > slowest.ms) slowest = { name: event.name, ms };
  };
  stream.on('test:pass', timed);
  stream.on('test:fail', (event: TestEvent) => {
    timed(event);
    if (!event.todo) process.exitCode = 1;
  });
  const reporter = process.stdout.isTTY ? stream.compose(new spec()) : stream.compose(tap);
  reporter.pipe(process.stdout, { end: false });
  reporter.on('end', () => {
    const [file, ms] = [...fileMs].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
    const s = (value: number) => `${(value / 1000).toFixed(1)} s`;
    process.stdout.write(`# slowest file: ${relative(process.cwd(), file)} (${s(ms)}); slowest test: ${slowest.name} (${s(slowest.ms)}); timeout ${s(TEST_TIMEOUT_MS)}\n`);
    process.stdout.write(`# test order: seed ${seed} (replay: ${replay})\n`);
  });
}

main();
