// vectorize convert INPUT... --out DIR [--format svg|pdf|eps|dxf|png] [--params JSON] [print and cut options] [--concurrency N]
// vectorize account [--json]
// Reads VECTORIZE_API_KEY and VECTORIZE_URL. Exits 1 when any file failed, 2 on a usage error.
import { parseArgs } from 'node:util';
import { relative } from 'node:path';
import cliProgress from 'cli-progress';
import { createClient, FORMATS, isTestKey, type AccountInfo, type FileFormat, type Params } from './client.ts';
import { VectorizeApiError } from './errors.ts';
import { collectInputs, convertBatch, type BatchEvent, type BatchOutcome } from './batch.ts';

const USAGE = `Usage: vectorize convert INPUT... --out DIR [--format svg|pdf|eps|dxf|png] [--params JSON] [--concurrency N]
       vectorize account [--json]

convert: converts images (files, folders, globs) with the vectorize service, writing one file each into DIR.
account: shows the key's account: plan, status, credits, today's conversions and the limits.

A test key (vk_test_…) converts for free under limits of its own; its results are watermarked.

Options:
  -o, --out DIR          output folder (created if missing)
  -f, --format FORMAT    svg (default), pdf, eps, dxf or png
  -p, --params JSON      tracing parameters, e.g. '{"colorPrecision":6,"stacking":"cutouts"}'
  -c, --concurrency N    conversions at once, at most (default 4); lowered to the plan's limit on its first 429

Print and cut options (members of params; given here, they win over --params):
      --preset NAME      vinyl, laser, plotter, screenprint or embroidery
      --palette COLOURS  every fill one of these, e.g. '#000000,#ffffff,#e4002b'
      --max-colors N     at most N fill colours (1 to 256)
      --centerline       lines as single strokes along their middle (pen plotters)
      --unit UNIT        px (default), mm or in: the files' physical size
      --dpi N            pixels per inch for --unit (72 to 2400, default 96)
      --min-feature W    remove pieces and holes narrower than W (in --unit)
      --timeout SECONDS  per request (default 120)
  -h, --help             this text

Environment:
  VECTORIZE_API_KEY      the API key (required)
  VECTORIZE_URL          the service (default http://localhost:8080)
`;

class UsageError extends Error {}

function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  return seconds < 60 ? `${seconds.toFixed(1)} s` : `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}

const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;

function table(rows: string[][], rightAligned: Set<number>): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows
    .map((row) => row.map((cell, column) => (rightAligned.has(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join('  ').trimEnd())
    .join('\n');
}

export function summary(outcomes: BatchOutcome[], elapsedMs: number): string {
  const rows = [['file', 'result', 'time', 'nodes', 'credits left']];
  for (const outcome of outcomes) {
    rows.push([
      outcome.file,
      outcome.ok ? `ok → ${relative(process.cwd(), outcome.output ?? '')}` : `failed: ${outcome.error ?? ''}`,
      formatDuration(outcome.timeMs),
      outcome.nodeCount === undefined ? '' : String(outcome.nodeCount),
      outcome.creditsRemaining === undefined ? '' : outcome.creditsRemaining === null ? 'unmetered' : String(outcome.creditsRemaining),
    ]);
  }
  const failed = outcomes.filter((outcome) => !outcome.ok).length;
  const converted = outcomes.length - failed;
  return `${table(rows, new Set([2, 3, 4]))}\n\n${files(outcomes.length)}: ${converted} converted, ${failed} failed, in ${formatDuration(elapsedMs)}\n`;
}

function parseCommandLine(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      out: { type: 'string', short: 'o' },
      format: { type: 'string', short: 'f', default: 'svg' },
      params: { type: 'string', short: 'p' },
      preset: { type: 'string' },
      palette: { type: 'string' },
      'max-colors': { type: 'string' },
      centerline: { type: 'boolean' },
      unit: { type: 'string' },
      dpi: { type: 'string' },
      'min-feature': { type: 'string' },
      concurrency: { type: 'string', short: 'c', default: '4' },
      timeout: { type: 'string', default: '120' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { help: true as const };
  const [command, ...inputs] = positionals;
  if (command === 'account') {
    if (inputs.length > 0) throw new UsageError('account takes no INPUT');
    return { help: false as const, command: 'account' as const, json: values.json, timeoutMs: Number(values.timeout) * 1000 };
  }
  if (command !== 'convert') throw new UsageError(command ? `unknown command ${command}` : 'missing command: convert or account');
  if (inputs.length === 0) throw new UsageError('no INPUT given');
  if (!values.out) throw new UsageError('--out DIR is required');
  if (!(FORMATS as readonly string[]).includes(values.format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}`);
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError('--concurrency must be a whole number of 1 or more');
  const timeout = Number(values.timeout);
  if (!(timeout > 0)) throw new UsageError('--timeout must be a number of seconds above 0');
  let params: Params = {};
  if (values.params !== undefined) {
    try {
      params = JSON.parse(values.params) as Params;
    } catch {
      throw new UsageError('--params must be a JSON object');
    }
    if (params === null || typeof params !== 'object' || Array.isArray(params)) throw new UsageError('--params must be a JSON object');
  }
  params = { ...params, ...printAndCutOptions(values) };
  return { help: false as const, command: 'convert' as const, inputs, out: values.out, format: values.format as FileFormat, params, concurrency, timeoutMs: timeout * 1000 };
}

const limitText = (value: number | null, unit: string) => (value === null ? 'no limit' : `${value} ${unit}`);

/** The account call's answer as a person reads it. */
export function accountText(info: AccountInfo): string {
  const rows = [
    ['key', info.test_key ? 'test key (free, watermarked results)' : 'live key'],
    ['plan', info.plan],
    ['status', info.status],
    ['credits', info.credits_remaining === null ? 'unmetered' : String(info.credits_remaining)],
    ['today', `${info.conversions_today}${info.daily_quota === null ? ' conversions (no daily quota)' : ` of ${info.daily_quota} conversions`}`],
    ['resets at', info.quota_resets_at],
    ['burst', limitText(info.burst_per_second, 'per second')],
    ['concurrency', limitText(info.concurrency, 'at a time')],
    [
      'test keys',
      `${info.test_keys.conversions_today} of ${info.test_keys.daily_cap} today, ${info.test_keys.burst_per_second} per second, ${info.test_keys.concurrency} at a time`,
    ],
  ];
  const width = Math.max(...rows.map(([label]) => (label ?? '').length));
  return `${rows.map(([label, value]) => `${(label ?? '').padEnd(width)}  ${value}`).join('\n')}\n`;
}

async function showAccount(json: boolean, timeoutMs: number): Promise<number> {
  try {
    const info = await createClient({ timeoutMs }).account();
    process.stdout.write(json ? `${JSON.stringify(info, null, 2)}\n` : accountText(info));
    return 0;
  } catch (error) {
    const status = error instanceof VectorizeApiError ? ` (HTTP ${error.status})` : '';
    process.stderr.write(`error: ${(error as Error).message}${status}\n`);
    return 1;
  }
}

/** The print and cut flags as params members; the service checks their ranges (400 naming the member). */
function printAndCutOptions(values: Record<string, string | boolean | undefined>): Params {
  const out: Record<string, unknown> = {};
  const number = (flag: string, integer: boolean): number | undefined => {
    const text = values[flag];
    if (typeof text !== 'string') return undefined;
    const value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
      throw new UsageError(`--${flag} must be ${integer ? 'a whole number' : 'a number'}`);
    }
    return value;
  };
  if (typeof values.preset === 'string') out.preset = values.preset;
  if (typeof values.palette === 'string') out.palette = values.palette.split(/[\s,;]+/).filter(Boolean);
  const maxColors = number('max-colors', true);
  if (maxColors !== undefined) out.maxColors = maxColors;
  if (values.centerline === true) out.centerline = true;
  if (typeof values.unit === 'string') out.unit = values.unit;
  const dpi = number('dpi', true);
  if (dpi !== undefined) out.dpi = dpi;
  const minFeature = number('min-feature', false);
  if (minFeature !== undefined) out.minFeature = minFeature;
  return out as Params;
}

/**
 * The time left, from the mean time per finished file; "…" until one has finished. (cli-progress's
 * own estimate is Infinity then, which it prints as "NFs".)
 */
function timeLeft(startedMs: number, nowMs: number, finished: number, total: number): string {
  if (finished === 0) return '…';
  if (finished >= total) return '0 ms';
  return formatDuration(((nowMs - startedMs) / finished) * (total - finished));
}

/** Progress on a terminal: a bar with the count and the time left; elsewhere a line per file. */
function progress(total: number, stream: NodeJS.WriteStream) {
  let finished = 0;
  let failed = 0;
  if (stream.isTTY) {
    const started = performance.now();
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: `{bar} {value}/{total} ${total === 1 ? 'file' : 'files'} | {percentage}% | ETA {left} | {failed} failed {note}`,
        barsize: 24,
        hideCursor: true,
        fps: 10,
      },
      cliProgress.Presets.shades_classic,
    );
    const left = () => timeLeft(started, performance.now(), finished, total);
    bar.start(total, 0, { failed: 0, note: '', left: left() });
    // The estimate counts down between files too.
    const ticking = setInterval(() => bar.update({ left: left() }), 1000);
    ticking.unref();
    return {
      event(event: BatchEvent) {
        if (event.type === 'done') {
          finished++;
          if (!event.outcome.ok) failed++;
          bar.update(finished, { failed, note: '', left: left() });
        } else if (event.type === 'retry') {
          bar.update(finished, { failed, note: `| ${event.status}: waiting ${formatDuration(event.waitMs)}`, left: left() });
        } else if (event.type === 'concurrency') {
          bar.update(finished, { failed, note: `| concurrency lowered to ${event.limit}`, left: left() });
        }
      },
      stop() {
        clearInterval(ticking);
        bar.stop();
      },
    };
  }
  return {
    event(event: BatchEvent) {
      if (event.type === 'done') {
        finished++;
        const { outcome } = event;
        stream.write(`[${finished}/${total}] ${outcome.ok ? 'ok' : 'failed'} ${outcome.file}${outcome.ok ? '' : `: ${outcome.error ?? ''}`}\n`);
      } else if (event.type === 'retry') {
        stream.write(`${event.file}: ${event.status}${event.limit ? ` (${event.limit})` : ''}, waiting ${formatDuration(event.waitMs)} before retrying\n`);
      } else if (event.type === 'concurrency') {
        stream.write(`concurrency lowered to ${event.limit}, the plan's limit\n`);
      }
    },
    stop() {},
  };
}

export async function main(argv: string[]): Promise<number> {
  let command;
  try {
    command = parseCommandLine(argv);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`error: ${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
  if (command.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!process.env.VECTORIZE_API_KEY) {
    process.stderr.write('error: set VECTORIZE_API_KEY to your API key\n');
    return 2;
  }
  if (command.command === 'account') return showAccount(command.json, command.timeoutMs);
  if (isTestKey(process.env.VECTORIZE_API_KEY)) {
    process.stderr.write('test key: conversions are free and their results are watermarked with TEST (use a live key for real output)\n');
  }
  let files: string[];
  try {
    files = await collectInputs(command.inputs);
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    return 2;
  }
  const started = performance.now();
  const shown = progress(files.length, process.stderr);
  const outcomes = await convertBatch(files, {
    outDir: command.out,
    format: command.format,
    params: command.params,
    concurrency: command.concurrency,
    client: { timeoutMs: command.timeoutMs },
    onEvent: (event) => shown.event(event),
  });
  shown.stop();
  process.stdout.write(summary(outcomes, performance.now() - started));
  return outcomes.every((outcome) => outcome.ok) ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
