// The hand-written surface of the SDK over the generated types: vectorize(), result() and account(),
// with retries that honour Retry-After on 429 and 503 (a bounded number of tries), a timeout,
// and typed errors.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { paths } from './generated/api.ts';
import { VectorizeApiError, VectorizeConnectionError, VectorizeTimeoutError } from './errors.ts';

type VectorizeOperation = paths['/api/v1/vectorize']['post'];
type ResultOperation = paths['/api/v1/result/{id}']['get'];
type AccountOperation = paths['/api/v1/account']['get'];

/** The JSON response of POST /api/v1/vectorize. */
export type VectorizeJson = VectorizeOperation['responses'][200]['content']['application/json'];
/** The metadata of GET /api/v1/result/{id}. */
export type ConversionResult = ResultOperation['responses'][200]['content']['application/json'];
/** GET /api/v1/account: plan, status, credits and limits of the key's account (null where unlimited). */
export type AccountInfo = AccountOperation['responses'][200]['content']['application/json'];
/** Tracing parameters; omitted members take the service's defaults. */
export type Params = Partial<ConversionResult['params']>;
/** The cut report: in the JSON response and the result lookup when `unit` is not px or a preset is given. */
export type CutReport = NonNullable<VectorizeJson['report']>;

export const FORMATS = ['svg', 'pdf', 'eps', 'dxf', 'png'] as const;
export type FileFormat = (typeof FORMATS)[number];
export type Format = 'json' | FileFormat;

export const MEDIA_TYPES: Record<FileFormat, keyof VectorizeOperation['responses'][200]['content']> = {
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  eps: 'application/postscript',
  dxf: 'image/vnd.dxf',
  png: 'image/png',
};

/** A file response: the bytes and the conversion's fields from its headers. */
export interface VectorizeFile {
  format: FileFormat;
  contentType: string;
  bytes: Uint8Array;
  id: string;
  nodeCount: number;
  processingTimeMs: number;
  /** The engine's fidelity score of the result, 0–1 (X-Fidelity). */
  fidelity: number;
  /** null on unmetered plans. */
  creditsRemaining: number | null;
  /** Made with a test key: the file carries the TEST watermark. */
  test: boolean;
}

/** A test key (`vk_test_…`) converts for free; its results are real but watermarked. */
export function isTestKey(key: string | undefined): boolean {
  return key?.startsWith('vk_test_') ?? false;
}

/** An image: a path to read, bytes, or a Blob (a File keeps its name). */
export type ImageInput = string | Uint8Array | Blob;

export interface RetryEvent {
  attempt: number;
  status: number;
  waitMs: number;
  error: VectorizeApiError;
}

export interface ClientOptions {
  /** Default: VECTORIZE_URL, else http://localhost:8080. */
  baseUrl?: string;
  /** Default: VECTORIZE_API_KEY. */
  apiKey?: string;
  /** Per attempt, in milliseconds. Default 120 000. */
  timeoutMs?: number;
  /** Attempts in all for one call, the first included, when the service answers 429 or 503. Default 5. */
  maxAttempts?: number;
  /** A Retry-After longer than this is not waited out: the error is thrown. Default 60 000 ms. */
  maxRetryWaitMs?: number;
  /** Told before each wait, e.g. to show it or to learn a limit. */
  onRetry?: (event: RetryEvent) => void;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
}

export interface VectorizeOptions<F extends Format> {
  format?: F;
  /** The upload's filename; default: the path's base name, the File's name, or `image`. */
  filename?: string;
}

export interface VectorizeClient {
  vectorize<F extends Format = 'json'>(image: ImageInput, params?: Params, options?: VectorizeOptions<F>): Promise<F extends FileFormat ? VectorizeFile : VectorizeJson>;
  result(id: string): Promise<ConversionResult>;
  /** The key's account: plan, status, credits, today's conversions and the limits. */
  account(): Promise<AccountInfo>;
  /** The client's key is a test key. */
  readonly testKey: boolean;
}

function numberHeader(headers: Headers, name: string): number {
  const raw = headers.get(name);
  const value = raw === null || raw === '' ? NaN : Number(raw);
  return Number.isFinite(value) ? value : NaN;
}

async function errorOf(response: Response): Promise<VectorizeApiError> {
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    body = { error: text.slice(0, 500) };
  }
  // Absent or not a number of seconds: undefined (Number(null) would read an absent header as 0).
  const header = response.headers.get('retry-after')?.trim() ?? '';
  const retryAfter = /^\d+$/.test(header) ? Number(header) : undefined;
  const message = typeof body.error === 'string' && body.error ? body.error : `HTTP ${response.status}`;
  return new VectorizeApiError(response.status, message, body, retryAfter);
}

export function createClient(options: ClientOptions = {}): VectorizeClient {
  const baseUrl = (options.baseUrl ?? process.env.VECTORIZE_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
  const apiKey = options.apiKey ?? process.env.VECTORIZE_API_KEY;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? 5));
  const maxRetryWaitMs = options.maxRetryWaitMs ?? 60_000;
  const fetchImpl = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  /** One call: a fresh request per attempt, retried on 429 and 503 as Retry-After says. */
  async function send(path: string, init: () => RequestInit): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      const request = init();
      const headers = new Headers(request.headers);
      if (apiKey) headers.set('authorization', `Bearer ${apiKey}`);
      let response: Response;
      const url = `${baseUrl}${path}`;
      try {
        response = await fetchImpl(url, { ...request, headers, signal: AbortSignal.timeout(timeoutMs) });
      } catch (error) {
        if (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')) throw new VectorizeTimeoutError(timeoutMs);
        // fetch says only "fetch failed"; the reason (refused, unknown host, reset) is its cause.
        throw new VectorizeConnectionError(url, error);
      }
      if (response.ok) return response;
      const error = await errorOf(response);
      const retryable = response.status === 429 || response.status === 503;
      const waitMs = (error.retryAfterSeconds ?? 1) * 1000;
      if (!retryable || attempt >= maxAttempts || waitMs > maxRetryWaitMs) throw error;
      options.onRetry?.({ attempt, status: response.status, waitMs, error });
      await sleep(waitMs);
    }
  }

  async function blobOf(image: ImageInput, filename: string | undefined): Promise<{ blob: Blob; name: string }> {
    if (typeof image === 'string') return { blob: new Blob([new Uint8Array(await readFile(image))]), name: filename ?? basename(image) };
    if (image instanceof Blob) return { blob: image, name: filename ?? ('name' in image && typeof image.name === 'string' ? image.name : 'image') };
    return { blob: new Blob([new Uint8Array(image)]), name: filename ?? 'image' };
  }

  async function vectorize<F extends Format = 'json'>(
    image: ImageInput,
    params: Params = {},
    vectorizeOptions: VectorizeOptions<F> = {},
  ): Promise<F extends FileFormat ? VectorizeFile : VectorizeJson> {
    const format: Format = vectorizeOptions.format ?? 'json';
    const { blob, name } = await blobOf(image, vectorizeOptions.filename);
    const accept = format === 'json' ? 'application/json' : MEDIA_TYPES[format];
    const response = await send('/api/v1/vectorize', () => {
      const form = new FormData();
      form.append('image', blob, name);
      if (Object.keys(params).length > 0) form.append('params', JSON.stringify(params));
      return { method: 'POST', headers: { accept }, body: form };
    });
    if (format === 'json') return (await response.json()) as F extends FileFormat ? VectorizeFile : VectorizeJson;
    const credits = response.headers.get('x-credits-remaining');
    const file: VectorizeFile = {
      format,
      contentType: response.headers.get('content-type') ?? accept,
      bytes: new Uint8Array(await response.arrayBuffer()),
      id: response.headers.get('x-conversion-id') ?? '',
      nodeCount: numberHeader(response.headers, 'x-node-count'),
      processingTimeMs: numberHeader(response.headers, 'x-processing-time-ms'),
      fidelity: numberHeader(response.headers, 'x-fidelity'),
      creditsRemaining: credits === null || credits === '' ? null : Number(credits),
      test: response.headers.get('x-test') === 'true',
    };
    return file as F extends FileFormat ? VectorizeFile : VectorizeJson;
  }

  async function result(id: string): Promise<ConversionResult> {
    const response = await send(`/api/v1/result/${encodeURIComponent(id)}`, () => ({ method: 'GET' }));
    return (await response.json()) as ConversionResult;
  }

  async function account(): Promise<AccountInfo> {
    const response = await send('/api/v1/account', () => ({ method: 'GET' }));
    return (await response.json()) as AccountInfo;
  }

  return { vectorize, result, account, testKey: isTestKey(apiKey) };
}
