// Batch conversion on the SDK: inputs (files, folders, globs) → files in an output folder,
// a few at a time. The number in flight starts at the requested concurrency and falls to what
// the plan allows as soon as the service refuses one for concurrency (429); a request waiting
// out a Retry-After gives its place up and waits for a free one before it tries again.
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { basename, extname, join, resolve } from 'node:path';
import { glob } from 'tinyglobby';
import { createClient, type ClientOptions, type FileFormat, type Params, type RetryEvent } from './client.ts';
import { VectorizeApiError, VectorizeTimeoutError } from './errors.ts';

const IMAGE_EXTENSIONS = new Set(['.png', '.jpg', '.jpeg', '.webp']);
const EXTENSIONS: Record<FileFormat, string> = { svg: 'svg', pdf: 'pdf', eps: 'eps', dxf: 'dxf', png: 'png' };

/**
 * The files named by the inputs, in order, each once: a file as it is, a folder's images (PNG,
 * JPEG, WebP, found recursively), a glob's matches. An input that names nothing is an error.
 */
export async function collectInputs(inputs: string[]): Promise<string[]> {
  const files: string[] = [];
  const seen = new Set<string>();
  const add = (file: string) => {
    const absolute = resolve(file);
    if (!seen.has(absolute)) {
      seen.add(absolute);
      files.push(file);
    }
  };
  for (const input of inputs) {
    const info = await stat(input).catch(() => undefined);
    if (info?.isFile()) {
      add(input);
      continue;
    }
    const pattern = info?.isDirectory() ? `${input.replace(/\/+$/, '')}/**/*` : input;
    const matches = (await glob(pattern, { onlyFiles: true, expandDirectories: false })).sort();
    const images = info?.isDirectory() ? matches.filter((file) => IMAGE_EXTENSIONS.has(extname(file).toLowerCase())) : matches;
    if (images.length === 0) throw new Error(`${input}: no such file, and no image matches it`);
    images.forEach(add);
  }
  return files;
}

export type BatchEvent =
  | { type: 'start'; file: string; index: number }
  | { type: 'done'; outcome: BatchOutcome }
  | { type: 'retry'; file: string; status: number; waitMs: number; limit: string | undefined }
  | { type: 'concurrency'; limit: number };

export interface BatchOutcome {
  file: string;
  ok: boolean;
  output?: string;
  error?: string;
  status?: number;
  timeMs: number;
  nodeCount?: number;
  creditsRemaining?: number | null;
}

export interface BatchOptions {
  outDir: string;
  format: FileFormat;
  params?: Params;
  concurrency: number;
  client?: ClientOptions;
  onEvent?: (event: BatchEvent) => void;
}

export async function convertBatch(files: string[], options: BatchOptions): Promise<BatchOutcome[]> {
  await mkdir(options.outDir, { recursive: true });
  let limit = Math.max(1, Math.floor(options.concurrency));
  let active = 0;
  let waiting: (() => void)[] = [];
  const acquire = async () => {
    while (active >= limit) await new Promise<void>((wake) => waiting.push(wake));
    active++;
  };
  const release = () => {
    active--;
    const woken = waiting;
    waiting = [];
    woken.forEach((wake) => wake());
  };
  const learn = (event: RetryEvent, file: string) => {
    options.onEvent?.({ type: 'retry', file, status: event.status, waitMs: event.waitMs, limit: event.error.limit });
    // Refused for concurrency with `active` in flight, this one included: the plan allows fewer.
    if (event.status === 429 && event.error.limit === 'concurrency' && active - 1 < limit) {
      limit = Math.max(1, active - 1);
      options.onEvent?.({ type: 'concurrency', limit });
    }
  };

  const names = new Set<string>();
  const outputFor = (file: string) => {
    const stem = basename(file, extname(file)) || 'image';
    let name = `${stem}.${EXTENSIONS[options.format]}`;
    for (let n = 2; names.has(name); n++) name = `${stem}-${n}.${EXTENSIONS[options.format]}`;
    names.add(name);
    return join(options.outDir, name);
  };
  const outputs = files.map(outputFor);

  async function convertOne(file: string, index: number): Promise<BatchOutcome> {
    await acquire();
    options.onEvent?.({ type: 'start', file, index });
    const started = performance.now();
    const client = createClient({
      ...options.client,
      onRetry: (event) => learn(event, file),
      // Waiting out a Retry-After gives the place up; the retry waits for a free one.
      sleep: async (ms) => {
        release();
        await new Promise((resolve) => setTimeout(resolve, ms));
        await acquire();
      },
    });
    try {
      const result = await client.vectorize(file, options.params ?? {}, { format: options.format });
      const output = outputs[index] as string;
      await writeFile(output, result.bytes);
      return { file, ok: true, output, timeMs: Math.round(performance.now() - started), nodeCount: result.nodeCount, creditsRemaining: result.creditsRemaining };
    } catch (error) {
      const status = error instanceof VectorizeApiError ? error.status : undefined;
      const message =
        error instanceof VectorizeApiError || error instanceof VectorizeTimeoutError
          ? error.message
          : `${error instanceof Error ? error.message : String(error)}`;
      return { file, ok: false, error: message, ...(status ? { status } : {}), timeMs: Math.round(performance.now() - started) };
    } finally {
      release();
    }
  }

  return Promise.all(
    files.map(async (file, index) => {
      const outcome = await convertOne(file, index);
      options.onEvent?.({ type: 'done', outcome });
      return outcome;
    }),
  );
}
