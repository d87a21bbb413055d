// `vectorize convert` (the SDK's command line, run as `npx vectorize` runs it: the package's bin)
// against the real server: a folder in every format, a free account's 429s waited out, a
// corrupt file reported while the rest converts, and the progress bar in a pseudo-terminal.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createAccount } from '../../src/accounts/accounts.ts';
import { createKey } from '../../src/accounts/keys.ts';
import { CORPUS } from '../helpers/http.ts';
import { freePort } from '../helpers/process.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { createSqliteDatabase } from '../helpers/stores.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'node_modules/.bin/vectorize');
const IMAGES = ['edge/tiny_tango_address_book_32.png', 'logo/flat_shapes_transparency_300.png', 'pixelart/grafxkid_grassland_terrain.png', 'edge/wide_grafxkid_speech_emotes_144x16.png'];
const MAGIC: Record<string, string> = { svg: '<svg ', pdf: '%PDF-', eps: '%!PS-Adobe-3.0 EPSF-3.0', dxf: '0\nSECTION', png: '\x89PNG' };

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function vectorize(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(BIN, args, { cwd: ROOT, env: { ...process.env, ...env }, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('vectorize convert', () => {
  let service: TestService;
  let work: string;
  let env: Record<string, string>;
  const folder = (name: string, images: string[]) => {
    const dir = join(work, name);
    mkdirSync(dir, { recursive: true });
    for (const image of images) copyFileSync(join(CORPUS, image), join(dir, image.split('/').pop() as string));
    return dir;
  };

  before(async () => {
    // The bin runs the built package: build it from the sources under test.
    execFileSync('npm', ['run', '--silent', 'build', '--workspace', 'clients/typescript'], { cwd: ROOT, stdio: 'ignore' });
    service = await startTestService(createSqliteDatabase());
    env = { VECTORIZE_URL: service.url, VECTORIZE_API_KEY: await service.accountWithKey('cli@example.com', { plan: 'lifetime' }) };
    work = mkdtempSync(join(tmpdir(), 'vectorize-cli-'));
  });
  after(async () => {
    await service.close();
    await service.database.drop();
    rmSync(work, { recursive: true, force: true });
  });

  it('converts a folder of corpus images in every format', async () => {
    const input = folder('all', IMAGES.slice(0, 3));
    for (const format of ['svg', 'pdf', 'eps', 'dxf', 'png']) {
      const out = join(work, `out-${format}`);
      const run = await vectorize(['convert', input, '--out', out, '--format', format, '--concurrency', '2'], env);
      assert.equal(run.code, 0, run.stderr + run.stdout);
      const written = readdirSync(out).sort();
      assert.deepEqual(written, ['grafxkid_grassland_terrain', 'flat_shapes_transparency_300', 'tiny_tango_address_book_32'].map((name) => `${name}.${format}`).sort());
      for (const file of written) assert.equal(readFileSync(join(out, file)).subarray(0, MAGIC[format]!.length).toString('latin1'), MAGIC[format], file);
      assert.match(run.stdout, /^file\s+result\s+time\s+nodes\s+credits left$/m);
      assert.match(run.stdout, /3 files: 3 converted, 0 failed, in /);
      assert.match(run.stdout, /unmetered/);
    }
  });

  it('takes files and globs, with params', async () => {
    const input = folder('glob', IMAGES);
    const out = join(work, 'out-glob');
    const run = await vectorize(['convert', join(input, 'tiny_*.png'), join(input, 'wide_grafxkid_speech_emotes_144x16.png'), '-o', out, '-p', '{"stacking":"cutouts","groupBy":"color"}'], env);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(readdirSync(out).sort(), ['tiny_tango_address_book_32.svg', 'wide_grafxkid_speech_emotes_144x16.svg']);
    assert.match(readFileSync(join(out, 'tiny_tango_address_book_32.svg'), 'utf8'), /<g fill="#/);
  });

  it('waits out 429s on a free account and learns its concurrency', async () => {
    const key = await service.accountWithKey('cli-free@example.com');
    const input = folder('free', IMAGES);
    const run = await vectorize(['convert', input, '--out', join(work, 'out-free'), '--concurrency', '3'], { ...env, VECTORIZE_API_KEY: key });
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.equal(readdirSync(join(work, 'out-free')).length, 4);
    assert.match(run.stderr, /: 429 \((concurrency|burst)\), waiting \d/);
    assert.match(run.stderr, /concurrency lowered to 1/);
    assert.match(run.stdout, /4 files: 4 converted, 0 failed/);
    // Ten sign-up credits, four spent: each file's balance is reported, the last one 6.
    assert.deepEqual(
      [...run.stdout.matchAll(/\s(\d+)$/gm)].map((match) => Number(match[1])).sort(),
      [6, 7, 8, 9],
    );
  });

  it('reports a corrupt file, converts the rest, and exits non-zero', async () => {
    const input = folder('corrupt', IMAGES.slice(0, 2));
    writeFileSync(join(input, 'broken.png'), readFileSync(join(CORPUS, IMAGES[1] as string)).subarray(0, 300));
    const out = join(work, 'out-corrupt');
    const run = await vectorize(['convert', input, '--out', out], env);
    assert.equal(run.code, 1);
    assert.deepEqual(readdirSync(out).sort(), ['flat_shapes_transparency_300.svg', 'tiny_tango_address_book_32.svg']);
    assert.match(run.stdout, /broken\.png\s+failed: 400: image: /);
    assert.match(run.stdout, /3 files: 2 converted, 1 failed/);
  });

  it('takes the print and cut options as flags: a preset, a palette, units and the rest', async () => {
    const input = folder('makers', ['logo/flat_shapes_transparency_300.png']);
    const dxfOut = join(work, 'out-makers-dxf');
    const dxf = await vectorize(['convert', input, '--out', dxfOut, '--format', 'dxf', '--preset', 'vinyl', '--unit', 'in', '--dpi', '300'], env);
    assert.equal(dxf.code, 0, dxf.stderr + dxf.stdout);
    const text = readFileSync(join(dxfOut, 'flat_shapes_transparency_300.dxf'), 'utf8');
    assert.match(text, /\$INSUNITS\r?\n\s*70\r?\n\s*1\r?\n/, 'inches, as --unit says over the preset');
    const svgOut = join(work, 'out-makers-svg');
    const svg = await vectorize(['convert', input, '--out', svgOut, '--palette', '#000000, #ffffff', '--max-colors', '1', '--min-feature', '2', '--unit', 'mm'], env);
    assert.equal(svg.code, 0, svg.stderr + svg.stdout);
    const written = readFileSync(join(svgOut, 'flat_shapes_transparency_300.svg'), 'utf8');
    assert.match(written, /width="79.375mm"/);
    assert.equal(new Set(written.match(/fill="#[0-9a-f]{6}"/g)).size, 1, 'one palette colour');
    const bad = await vectorize(['convert', input, '--out', svgOut, '--dpi', 'many'], env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--dpi must be a whole number/);
    const refused = await vectorize(['convert', input, '--out', svgOut, '--preset', 'cnc'], env);
    assert.equal(refused.code, 1, 'the service refuses it, per file');
    assert.match(refused.stdout, /failed: 400: params\.preset: must be one of/);
  });

  it('refuses bad usage with exit code 2', async () => {
    for (const args of [['convert', 'x.png'], ['convert', 'x.png', '--out', 'o', '--format', 'gif'], ['resize', 'x.png', '--out', 'o'], ['convert', 'x.png', '--out', 'o', '--bogus']]) {
      const run = await vectorize(args, env);
      assert.equal(run.code, 2, args.join(' '));
      assert.match(run.stderr, /^error: .*\n\nUsage: vectorize convert/);
    }
    const missing = await vectorize(['convert', join(work, 'nothing-here'), '--out', join(work, 'o')], env);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /nothing-here: no such file/);
  });

  it('shows a progress bar with the count and time left in a terminal', async () => {
    const input = folder('pty', IMAGES.slice(0, 3));
    const out = join(work, 'out-pty');
    // script(1) from util-linux runs the command in a pseudo-terminal and copies what it shows.
    const command = `${BIN} convert ${input} --out ${out} --concurrency 1`;
    const shown = await new Promise<Run>((resolve) => {
      execFile('script', ['-qefc', command, '/dev/null'], { cwd: ROOT, env: { ...process.env, ...env, COLUMNS: '120' }, timeout: 120_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? 1 : 0, stdout, stderr }),
      );
    });
    assert.equal(shown.code, 0, shown.stdout + shown.stderr);
    // Frames are redrawn in place (at most ten a second, so two files finishing together share one).
    const frames = [...shown.stdout.matchAll(/(\d)\/3 files \| (\d+)% \| ETA (…|[\d.]+ m?s|\d+ min \d+ s) \|/g)].map((match) => ({ done: Number(match[1]), percent: Number(match[2]), left: match[3] }));
    const seen = JSON.stringify(shown.stdout.slice(0, 600));
    assert.equal(frames[0]?.done, 0, `the bar starts at 0/3: ${seen}`);
    assert.equal(frames[0]?.left, '…', 'no estimate before a file is done');
    assert.doesNotMatch(shown.stdout, /NFs|INF|NULL|NaN/, 'never an estimate of infinity');
    assert.equal(frames.at(-1)?.done, 3, `the bar ends at 3/3: ${seen}`);
    assert.ok(frames.some((frame) => frame.done > 0 && frame.done < 3), `a frame in between: ${seen}`);
    assert.ok(frames.every((frame, index) => index === 0 || frame.done >= (frames[index - 1]?.done ?? 0)), 'the count only grows');
    assert.ok(frames.every((frame) => frame.percent === Math.floor((frame.done * 100) / 3) || frame.percent === Math.round((frame.done * 100) / 3)));
    assert.ok(shown.stdout.includes('\u001b[1G'), 'redrawn in place');
    assert.match(shown.stdout, /[█░]{24}/);
    assert.match(shown.stdout, /3 files: 3 converted, 0 failed/);

    // One file: "1/1 file" and "1 file", never "1 files".
    const single = await new Promise<Run>((resolve) => {
      execFile('script', ['-qefc', `${BIN} convert ${join(input, readdirSync(input)[0]!)} --out ${out}-one`, '/dev/null'], { cwd: ROOT, env: { ...process.env, ...env, COLUMNS: '120' }, timeout: 120_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? 1 : 0, stdout, stderr }),
      );
    });
    assert.equal(single.code, 0, single.stdout + single.stderr);
    assert.match(single.stdout, /1\/1 file \|/);
    assert.match(single.stdout, /\n1 file: 1 converted, 0 failed/);
    assert.doesNotMatch(single.stdout, /1 files/);
  });

  it('names the URL and the cause when the service cannot be reached', async () => {
    const input = folder('unreachable', IMAGES.slice(0, 1));
    const port = await freePort();
    const run = await vectorize(['convert', input, '--out', join(work, 'out-unreachable')], { ...env, VECTORIZE_URL: `http://127.0.0.1:${port}` });
    assert.equal(run.code, 1);
    assert.ok(run.stdout.includes(`failed: cannot reach http://127.0.0.1:${port}/api/v1/vectorize: connect ECONNREFUSED 127.0.0.1:${port}`), run.stdout);
  });

  it('shows the key’s account with `vectorize account`, and knows a test key', async () => {
    const shown = await vectorize(['account'], env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^key\s+live key$/m);
    assert.match(shown.stdout, /^plan\s+lifetime$/m);
    assert.match(shown.stdout, /^credits\s+unmetered$/m);
    assert.match(shown.stdout, /^today\s+\d+ conversions \(no daily quota\)$/m, 'earlier tests of this file converted with the same key');
    const holder = await createAccount(service.store.db, { email: 'cli-test@example.com', credits: 4 });
    const { key } = await createKey(service.store.db, holder.id, 'ci', Date.now(), { test: true });
    service.logs.secrets.add(key);
    const asJson = await vectorize(['account', '--json'], { ...env, VECTORIZE_API_KEY: key });
    assert.equal(asJson.code, 0, asJson.stderr);
    const info = JSON.parse(asJson.stdout) as Record<string, unknown>;
    assert.equal(info.test_key, true);
    assert.equal(info.credits_remaining, 4);
    assert.equal(info.daily_quota, 5);
    const out = join(work, 'test-key');
    const converted = await vectorize(['convert', join(CORPUS, IMAGES[0] as string), '--out', out], { ...env, VECTORIZE_API_KEY: key });
    assert.equal(converted.code, 0, converted.stderr);
    assert.match(converted.stderr, /test key: conversions are free and their results are watermarked/);
    const refused = await vectorize(['account'], { ...env, VECTORIZE_API_KEY: 'vk_notAKey000000000000' });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /API key invalid or revoked \(HTTP 401\)/);
  });
});
