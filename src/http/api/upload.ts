// Reads the multipart upload: exactly one `image` file, an optional `params` JSON object,
// nothing else. The file is capped while streaming: never more than the limit is buffered.
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../../errors.ts';
import { ParamsError, parseParams } from '../../engine/params.ts';
import type { Upload } from '../../conversion/vectorize.ts';

const PARAMS_MAX_BYTES = 64 * 1024;
/** Room for multipart boundaries and part headers on top of the file itself. */
export const MULTIPART_OVERHEAD = 1024 * 1024;

export function tooLarge(maxBytes: number): DomainError {
  return new DomainError('upload_too_large', `image: the upload exceeds the ${maxBytes / (1024 * 1024)} MB limit (${maxBytes} bytes)`);
}

/**
 * Refuses (413) a body whose declared Content-Length cannot hold an upload within the limit,
 * before an upload slot is taken or a byte is read.
 */
export function refuseDeclaredOversize(request: FastifyRequest, maxBytes: number): void {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes + MULTIPART_OVERHEAD) throw tooLarge(maxBytes);
}

/** The body must advance by `minBytesPerSecond` over every window, or the upload is cut with 408. */
export interface UploadPace {
  minBytesPerSecond: number;
  windowMs: number;
}

export async function readUpload(request: FastifyRequest, maxBytes: number, pace?: UploadPace): Promise<Upload> {
  // The client (or the proxy in front) may have hung up while the request was authenticated and
  // its credit reserved (a store a network hop away takes that long): the body will never come,
  // and no event would say so, so the read would wait for the pace check. Fail it at once.
  if (request.raw.destroyed && !request.raw.complete) throw new DomainError('invalid_input', 'image: the connection closed before the upload was read');
  return withUploadPace(request, pace, () => readMultipart(request, maxBytes));
}

/** Runs `read` (which reads the request body) under the pace check. */
export async function withUploadPace<T>(request: FastifyRequest, pace: UploadPace | undefined, read: () => Promise<T>): Promise<T> {
  if (!pace || pace.minBytesPerSecond === 0) return read();
  // A client trickling bytes would otherwise hold a connection, an admission slot and a
  // credit reservation until the request timeout; the window check frees them much sooner.
  const socket = request.raw.socket;
  let timer: NodeJS.Timeout | undefined;
  const tooSlow = new Promise<never>((_resolve, reject) => {
    let last = socket.bytesRead;
    timer = setInterval(() => {
      const received = socket.bytesRead - last;
      last = socket.bytesRead;
      if (request.raw.complete || received >= (pace.minBytesPerSecond * pace.windowMs) / 1000) return;
      reject(new DomainError('upload_too_slow', `upload too slow: the body must arrive at ${pace.minBytesPerSecond} bytes per second or more`));
    }, pace.windowMs);
  });
  try {
    return await Promise.race([read(), tooSlow]);
  } finally {
    clearInterval(timer);
  }
}

async function readMultipart(request: FastifyRequest, maxBytes: number): Promise<Upload> {
  if (!request.isMultipart()) {
    throw new DomainError('invalid_input', 'the request must be multipart/form-data with an `image` file field');
  }
  refuseDeclaredOversize(request, maxBytes);

  let image: { bytes: Buffer; filename: string } | undefined;
  let paramsText: string | undefined;
  const parts = request.parts({
    limits: { fileSize: maxBytes, files: 3, fields: 5, parts: 8, fieldSize: PARAMS_MAX_BYTES, headerPairs: 50 },
    // Keep filenames exactly as sent, with any path.
    preservePath: true,
  });
  for await (const part of parts) {
    if (part.fieldname !== 'image' && part.fieldname !== 'params') {
      throw new DomainError('invalid_input', `unknown form field ${JSON.stringify(part.fieldname)}: only \`image\` and \`params\` are accepted`);
    }
    if (part.type === 'file') {
      let bytes: Buffer;
      try {
        bytes = await part.toBuffer();
      } catch (error) {
        if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(maxBytes);
        throw error;
      }
      if (part.fieldname === 'params') {
        if (paramsText !== undefined) throw new DomainError('invalid_input', 'params: sent more than once');
        if (bytes.length > PARAMS_MAX_BYTES) throw new DomainError('invalid_input', 'params: too long');
        paramsText = bytes.toString('utf8');
      } else {
        if (image) throw new DomainError('invalid_input', 'image: send exactly one image file');
        image = { bytes, filename: part.filename };
      }
    } else {
      if (part.fieldname === 'image') {
        throw new DomainError('invalid_input', 'image: must be a file part (with a filename), not a plain form field');
      }
      if (paramsText !== undefined) throw new DomainError('invalid_input', 'params: sent more than once');
      if (part.valueTruncated) throw new DomainError('invalid_input', 'params: too long');
      paramsText = typeof part.value === 'string' ? part.value : String(part.value);
    }
  }
  let params;
  try {
    params = parseParams(paramsText);
  } catch (error) {
    if (error instanceof ParamsError) throw new DomainError('invalid_input', error.message);
    throw error;
  }
  if (!image) throw new DomainError('invalid_input', 'image: missing; send the image as a multipart file field named `image`');
  return { ...image, params };
}
