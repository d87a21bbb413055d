// Client-measured conversion time: the real server on 127.0.0.1, every corpus image POSTed
// once, one at a time, timed from the client's first byte sent to the last byte of the answer
// (upload, queue, decoding, tracing, SVG writing and the JSON response). Each conversion runs in
// one worker process with one libvips thread, so a time is what one core takes. Writes its
// section of docs/benchmarks.md between the client markers.
//
//   npm run bench:client                  the corpus (the images one folder down; not upscale/)
//   npm run bench:client -- --dir PATH    a held-out set laid out like the corpus (bench/heldout-set.sh);
//                                         written to the `clientheldout` section
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createAccount } from '../src/accounts/accounts.ts';
import { createKey } from '../src/accounts/keys.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger, startService } from '../src/service.ts';
import { CORPUS_DIR, HELD_OUT_DIR, listCorpus } from './corpus.ts';
import { median, percentile, printTargets, tableRow, targetTable, type Target } from './figures.ts';
import { REPORT_PATH, writeReportSection } from './report.ts';

const P95_TARGET_MS = 2000;
const MEDIAN_TARGET_MS = 300;

const dir = mkdtempSync(join(tmpdir(), 'vectorize-client-bench-'));
const service = await startService(
  loadConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`, LOG_LEVEL: 'warn' }),
  { logger: createLogger('warn') },
);
try {
  const account = await createAccount(service.store.db, { email: 'bench@example.com', plan: 'lifetime' });
  const { key } = await createKey(service.store.db, account.id, 'bench');
  const rows: { file: string; bytes: number; ms: number; serverMs: number }[] = [];
  for (const { file } of listCorpus()) {
    const bytes = readFileSync(join(CORPUS_DIR, file));
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(bytes)]), basename(file));
    const started = performance.now();
    const response = await fetch(`${service.url}/api/v1/vectorize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    const body = (await response.json()) as { processing_time_ms?: number; error?: string };
    const ms = performance.now() - started;
    if (response.status !== 200) throw new Error(`${file}: ${response.status} ${body.error}`);
    rows.push({ file, bytes: bytes.length, ms, serverMs: body.processing_time_ms ?? 0 });
    console.log(file.padEnd(60), `${Math.round(ms)} ms (engine ${body.processing_time_ms} ms)`);
  }
  const times = rows.map((r) => r.ms);
  const middle = median(times);
  const p95 = percentile(times, 95);
  const max = Math.max(...times);
  const targets: Target[] = [
    { name: `p95 under ${P95_TARGET_MS.toLocaleString('en')} ms`, figures: `${Math.round(p95)} ms`, met: p95 < P95_TARGET_MS },
    { name: `median under ${MEDIAN_TARGET_MS} ms`, figures: `${Math.round(middle)} ms`, met: middle < MEDIAN_TARGET_MS },
  ];
  console.log(`median ${Math.round(middle)} ms, p95 ${Math.round(p95)} ms, max ${Math.round(max)} ms`);
  printTargets(targets);
  const section = [
    HELD_OUT_DIR
      ? '## Client-measured time on the held-out images (`npm run bench:client -- --dir PATH`)'
      : '## Client-measured time (`npm run bench:client`)',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}.`,
    `The real server on 127.0.0.1 (SQLite, default settings, one worker per core); every ${HELD_OUT_DIR ? 'held-out' : 'corpus'} image POSTed`,
    'once, one request at a time, timed by the client from sending to the end of the JSON answer. Each',
    'conversion runs in one worker process with one libvips thread: one core per conversion.',
    '',
    `**median ${Math.round(middle)} ms, p95 ${Math.round(p95)} ms** (max ${Math.round(max)} ms over ${rows.length} images).`,
    '',
    ...targetTable(targets),
    '',
    '| image | upload KB | client ms | engine ms |',
    '|---|---|---|---|',
    ...rows.map((r) => tableRow([r.file, (r.bytes / 1024).toFixed(1), Math.round(r.ms), r.serverMs])),
  ].join('\n');
  writeReportSection(HELD_OUT_DIR ? 'clientheldout' : 'client', section);
  console.log(`wrote ${REPORT_PATH}`);
} finally {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
}
