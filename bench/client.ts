// Client-measured conversion time: the real server on 127.0.0.1, every corpus image POSTed
// once, one at a time, timed from the client's first byte sent to the last byte of the answer
// (upload, queue, decoding, tracing, SVG writing and the JSON response). Writes its section of
// docs/benchmarks.md between the client markers.
//
//   npm run bench:client                  the corpus
//   npm run bench:client -- --dir PATH    a held-out set laid out like the corpus (bench/heldout-set.sh);
//                                         written to the `clientheldout` section
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAccount } from '../src/accounts/accounts.ts';
import { createKey } from '../src/accounts/keys.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger, startService } from '../src/service.ts';
import { REPORT_PATH, writeReportSection } from './report.ts';

const dirIndex = process.argv.indexOf('--dir');
const HELD_OUT_DIR = dirIndex >= 0 ? process.argv[dirIndex + 1] : undefined;
const CORPUS = HELD_OUT_DIR ?? fileURLToPath(new URL('../../shared/corpus/', import.meta.url));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

const dir = mkdtempSync(join(tmpdir(), 'vectorize-client-bench-'));
const service = await startService(
  loadConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`, LOG_LEVEL: 'warn' }),
  { logger: createLogger('warn') },
);
try {
  await createAccount(service.store.db, { email: 'bench@example.com', plan: 'lifetime' });
  const { key } = await createKey(service.store.db, 'bench@example.com', 'bench');
  const rows: { file: string; bytes: number; ms: number; serverMs: number }[] = [];
  for (const category of readdirSync(CORPUS, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()) {
    for (const name of readdirSync(join(CORPUS, category)).sort()) {
      const bytes = readFileSync(join(CORPUS, category, name));
      const form = new FormData();
      form.append('image', new Blob([new Uint8Array(bytes)]), name);
      const started = performance.now();
      const response = await fetch(`${service.url}/api/v1/vectorize`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: form,
      });
      const body = (await response.json()) as { processing_time_ms?: number; error?: string };
      const ms = performance.now() - started;
      if (response.status !== 200) throw new Error(`${category}/${name}: ${response.status} ${body.error}`);
      rows.push({ file: `${category}/${name}`, bytes: bytes.length, ms, serverMs: body.processing_time_ms ?? 0 });
      console.log(`${category}/${name}`.padEnd(60), `${Math.round(ms)} ms (engine ${body.processing_time_ms} ms)`);
    }
  }
  const times = rows.map((r) => r.ms).sort((a, b) => a - b);
  const p50 = percentile(times, 50);
  const p95 = percentile(times, 95);
  const max = times[times.length - 1] ?? 0;
  console.log(`p50 ${Math.round(p50)} ms, p95 ${Math.round(p95)} ms, max ${Math.round(max)} ms`);
  const section = [
    HELD_OUT_DIR
      ? '## Client-measured time on the held-out images (`npm run bench:client -- --dir PATH`)'
      : '## Client-measured time (`npm run bench:client`)',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}.`,
    `The real server on 127.0.0.1 (SQLite, default settings, one worker per core); every ${HELD_OUT_DIR ? 'held-out' : 'corpus'} image POSTed`,
    'once, one request at a time, timed by the client from sending to the end of the JSON answer.',
    '',
    `**p95 ${Math.round(p95)} ms** (p50 ${Math.round(p50)} ms, max ${Math.round(max)} ms over ${rows.length} images) — target under 2,000 ms: ${p95 < 2000 ? 'met' : '**missed**'}.`,
    '',
    '| image | upload KB | client ms | engine ms |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.file} | ${(r.bytes / 1024).toFixed(1)} | ${Math.round(r.ms)} | ${r.serverMs} |`),
  ].join('\n');
  writeReportSection(HELD_OUT_DIR ? 'clientheldout' : 'client', section);
  console.log(`wrote ${REPORT_PATH}`);
} finally {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
}
