// The conversion use case: limits → reserve a credit → read the upload → trace → record → settle.
// A test key's conversion skips the credit, has the test keys' limits and a watermarked result.
// Whatever fails after the reservation gives the credit back; the limits' slot is always released.
import type { Logger } from 'pino';
import type { Account } from '../accounts/accounts.ts';
import { refundReservation, renewReservation, reserveCredit, settleReservation } from '../accounts/credits.ts';
import { DomainError } from '../errors.ts';
import { sniffFormat } from '../engine/analyse/decode.ts';
import type { TraceParams } from '../engine/params.ts';
import { EngineError, type Engine } from '../engine/types.ts';
import type { CutReport } from '../engine/check/cut-report.ts';
import type { FileFormat } from '../engine/write/index.ts';
import type { Limits } from '../limits/limits.ts';
import { testKeySubject } from '../limits/test-keys.ts';
import type { Store } from '../store/database.ts';
import { newConversionId } from './ids.ts';
import { insertConversion } from './records.ts';
import { insertSource } from './sources.ts';

export interface ConversionDeps {
  store: Store;
  engine: Engine;
  limits: Limits;
  now: () => number;
  /** How long a reservation may stay held before a sweep treats its process as dead. */
  reservationLeaseMs: number;
  log: Logger;
  /** Told of every credit settled (spent) or given back (refunded), for metrics. */
  onCredit?: (event: 'spent' | 'refunded') => void;
}

export interface Upload {
  bytes: Buffer;
  filename: string;
  params: TraceParams;
}

/** What a conversion made; the front-ends choose the names they show it under (src/http/api/responses.ts). */
export interface Conversion {
  id: string;
  svg: string;
  width: number;
  height: number;
  nodeCount: number;
  processingTimeMs: number;
  /** The engine's measure (0–1) of how closely the SVG, rendered, matches the image (docs/engine.md). */
  fidelity: number;
  /** The balance right after this conversion; null for an unmetered plan. */
  creditsRemaining: number | null;
  /** Made with a test key: free, watermarked. */
  test: boolean;
  /** When `unit` is not px or a preset was given (issue 19). */
  report?: CutReport;
  /** The file, when a format was asked for. */
  file?: Buffer;
}

/** How a conversion is asked for: `test` for a test key (no credit, no plan quota, a watermark, the test keys' limits). */
export interface ConversionOptions {
  test?: boolean;
  /** Keep the upload for downloads in every format without another credit (the converter; sources.ts). */
  keepSource?: boolean;
}

export async function vectorize(
  deps: ConversionDeps,
  account: Account,
  readUpload: () => Promise<Upload>,
  format?: FileFormat,
  options: ConversionOptions = {},
): Promise<Conversion> {
  // Front-ends check this as they identify the account; checked here too, so none can forget.
  if (account.status !== 'active') throw accountInactive(account);
  const test = options.test === true;
  const admission = await deps.limits.admit(test ? testKeySubject(account) : account);
  try {
    return await reserveAndConvert(deps, account, readUpload, format, test, options.keepSource === true);
  } finally {
    await admission.release();
  }
}

async function reserveAndConvert(
  deps: ConversionDeps,
  account: Account,
  readUpload: () => Promise<Upload>,
  format: FileFormat | undefined,
  test: boolean,
  keepSource: boolean,
): Promise<Conversion> {
  const { db } = deps.store;
  const id = newConversionId(deps.now());
  // A test key spends nothing: its balance is reported as it stands.
  const metered = account.plan.metered && !test;
  // The balance right after this conversion's credit was taken: parallel conversions each get their own.
  let creditsRemaining: number | null = account.plan.metered ? account.credits : null;
  if (metered) {
    const reservation = await reserveCredit(db, account.id, id, deps.reservationLeaseMs, deps.now());
    if (!reservation) throw new DomainError('insufficient_credits', 'insufficient_credits', { creditsRemaining: 0 });
    creditsRemaining = reservation.balance;
  }
  const renewal = metered ? keepLease(deps, id) : undefined;
  try {
    const upload = await readUpload();
    checkImageBytes(upload.bytes);
    const result = await convertOrExplain(deps.engine, upload, format, test);
    if (format && !result.file) throw new Error(`the engine returned no ${format} file`);
    await db.transaction().execute(async (trx) => {
      await insertConversion(
        trx,
        { id, accountId: account.id, originalName: upload.filename, fileSize: upload.bytes.length, params: upload.params, result, test },
        deps.now(),
      );
      if (keepSource) {
        await insertSource(
          trx,
          { conversionId: id, accountId: account.id, originalName: upload.filename, image: upload.bytes, params: upload.params, svg: result.svg },
          deps.now(),
        );
      }
      if (metered && !(await settleReservation(trx, id))) {
        deps.log.warn({ conversionId: id }, 'reservation was no longer held at settlement');
      }
    });
    if (metered) deps.onCredit?.('spent');
    return {
      id,
      svg: result.svg,
      width: result.width,
      height: result.height,
      nodeCount: result.nodeCount,
      processingTimeMs: result.processingTimeMs,
      fidelity: result.fidelity,
      creditsRemaining,
      test,
      ...(result.report ? { report: result.report } : {}),
      ...(result.file ? { file: Buffer.from(result.file.buffer, result.file.byteOffset, result.file.byteLength) } : {}),
    };
  } catch (error) {
    if (metered) await refundQuietly(deps, id, error);
    throw error;
  } finally {
    if (renewal) clearInterval(renewal);
  }
}

/**
 * Renews the reservation's lease a few times per lease while the conversion runs (a slow upload,
 * a long queue): the lease sweep of any node then refunds only reservations whose process died.
 */
function keepLease(deps: ConversionDeps, id: string): NodeJS.Timeout {
  const timer = setInterval(() => {
    renewReservation(deps.store.db, id, deps.reservationLeaseMs, deps.now()).catch((error: unknown) =>
      deps.log.warn({ err: error, conversionId: id }, 'could not renew the reservation lease'),
    );
  }, Math.max(250, Math.floor(deps.reservationLeaseMs / 3)));
  timer.unref();
  return timer;
}

export function accountInactive(account: Account): DomainError {
  return new DomainError('account_inactive', `account ${account.status}: this account is ${account.status} and cannot convert images`, {
    accountStatus: account.status,
  });
}

/** The media type of an image, from its bytes (never from what the client said it was). */
export function imageMediaType(bytes: Uint8Array): 'image/png' | 'image/jpeg' | 'image/webp' | undefined {
  const format = sniffFormat(bytes);
  return format ? `image/${format}` : undefined;
}

function checkImageBytes(bytes: Buffer): void {
  if (bytes.length === 0) throw new DomainError('invalid_input', 'image: the uploaded file is empty');
  if (!sniffFormat(bytes)) {
    throw new DomainError('invalid_input', 'image: unsupported format; send a PNG, JPEG or WebP image (detected from its bytes)');
  }
}

/** The engine's conversion, its failures said as the domain's errors. */
export async function convertOrExplain(engine: Engine, upload: Upload, format: FileFormat | undefined, watermark: boolean) {
  try {
    return await engine.convert({ image: upload.bytes, params: upload.params, ...(format ? { format } : {}), ...(watermark ? { watermark } : {}) });
  } catch (error) {
    if (!(error instanceof EngineError)) throw error;
    switch (error.kind) {
      case 'invalid_image':
        throw new DomainError('invalid_input', `image: ${error.message}`);
      case 'timeout':
        throw new DomainError('engine_timeout', 'the vectorization engine exceeded its time limit on this image');
      case 'engine_failed':
        throw new DomainError('engine_failed', 'the vectorization engine failed to process this image');
      case 'queue_full':
        throw new DomainError('unavailable', 'the conversion queue is full; retry shortly', { retryAfterSeconds: 2 });
      case 'closed':
        throw new DomainError('unavailable', 'the service is shutting down; retry shortly', { retryAfterSeconds: 5 });
    }
  }
}

async function refundQuietly(deps: ConversionDeps, id: string, cause: unknown): Promise<void> {
  const reason = cause instanceof DomainError ? `failed: ${cause.code}` : 'failed: internal error';
  try {
    if (await refundReservation(deps.store.db, id, reason, deps.now())) deps.onCredit?.('refunded');
  } catch (error) {
    // The lease sweep refunds it later; the ledger stays consistent either way.
    deps.log.error({ err: error, conversionId: id }, 'refund failed; left to the lease sweep');
  }
}
