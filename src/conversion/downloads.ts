// A converter result downloaded again, in any format, without another credit (issue 20). The
// kept upload is traced again through the same worker queue as any conversion, with the kept
// parameters and the output options given here; nothing is reserved, settled or recorded, so
// the daily quota (which counts recorded conversions) does not see it either. The SVG as it was
// converted is sent as kept, without a new trace.
import type { Account } from '../accounts/accounts.ts';
import type { Engine } from '../engine/types.ts';
import { ParamsError, parseParams, type TraceParams } from '../engine/params.ts';
import type { FileFormat } from '../engine/write/index.ts';
import { DomainError } from '../errors.ts';
import type { Store } from '../store/database.ts';
import { CONVERSION_ID } from './ids.ts';
import { convertOrExplain } from './vectorize.ts';
import { DOWNLOAD_RETENTION_MS, findSource } from './sources.ts';

export interface DownloadDeps {
  store: Store;
  engine: Engine;
  now: () => number;
  /** How long a converter result can be downloaded; DOWNLOAD_RETENTION_MS unless a test says otherwise. */
  downloadRetentionMs?: number;
}

/** The options that change only the file written, not what is traced from the image. */
export const OUTPUT_OPTIONS = ['unit', 'dpi', 'palette', 'maxColors', 'minFeature', 'centerline'] as const;
export type OutputOptions = Partial<Pick<TraceParams, (typeof OUTPUT_OPTIONS)[number]>>;

export interface Download {
  file: Buffer;
  format: FileFormat;
  /** The upload's name, as it was sent: the front-end makes a file name of it. */
  originalName: string;
}

/** At most this many downloads of one account are written at once on this node. */
const RENDERS_PER_ACCOUNT = 2;
const rendering = new Map<string, number>();

export async function downloadResult(
  deps: DownloadDeps,
  account: Account,
  id: string,
  format: FileFormat,
  options: OutputOptions = {},
): Promise<Download> {
  const retentionMs = deps.downloadRetentionMs ?? DOWNLOAD_RETENTION_MS;
  const source = CONVERSION_ID.test(id) ? await findSource(deps.store.db, id, account.id, deps.now() - retentionMs) : undefined;
  if (source === undefined) throw new DomainError('not_found', `result not found: ${id}`);
  if (source === 'expired') {
    throw new DomainError('not_found', `this result has expired: converter results can be downloaded for ${retentionMs / 3_600_000} hours after the conversion; convert the image again`);
  }
  const changed = Object.keys(options).length > 0;
  if (format === 'svg' && !changed) return { file: Buffer.from(source.svg, 'utf8'), format, originalName: source.originalName };
  const params = withOptions(source.params, options);
  const held = rendering.get(account.id) ?? 0;
  if (held >= RENDERS_PER_ACCOUNT) {
    throw new DomainError('rate_limited', 'downloads: one is still being written', { limit: 'concurrency', retryAfterSeconds: 1 });
  }
  rendering.set(account.id, held + 1);
  try {
    const result = await convertOrExplain(deps.engine, { bytes: source.image, filename: source.originalName, params }, format, false);
    if (!result.file) throw new Error(`the engine returned no ${format} file`);
    return { file: Buffer.from(result.file.buffer, result.file.byteOffset, result.file.byteLength), format, originalName: source.originalName };
  } finally {
    const left = (rendering.get(account.id) ?? 1) - 1;
    if (left > 0) rendering.set(account.id, left);
    else rendering.delete(account.id);
  }
}

/** The kept parameters with the output options given, checked by the same validation as a request's. */
function withOptions(kept: TraceParams, options: OutputOptions): TraceParams {
  try {
    return parseParams(JSON.stringify({ ...kept, ...options }));
  } catch (error) {
    if (error instanceof ParamsError) throw new DomainError('invalid_input', error.message.replace(/^params\./, ''));
    throw error;
  }
}
