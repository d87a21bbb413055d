// A multipart upload held open on a raw HTTP request, to have a conversion in flight on demand.
import { request as httpRequest, type ClientRequest } from 'node:http';

export interface HeldUpload {
  /** Sends the rest of the body; resolves with the response. */
  finish(): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Drops the connection mid-upload, as a client that goes away. */
  abort(): void;
  /** Settles when the server answers before the body is complete (e.g. a refusal). */
  response: Promise<{ status: number; body: Record<string, unknown> }>;
}

const BOUNDARY = 'heldUploadBoundary';

export function holdUpload(baseUrl: string, key: string, image: Buffer): HeldUpload {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="image"; filename="held.png"\r\nContent-Type: image/png\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const url = new URL('/api/v1/vectorize', baseUrl);
  const req: ClientRequest = httpRequest(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      'content-length': String(head.length + image.length + tail.length),
    },
  });
  const response = new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  req.flushHeaders();
  // Half of the image now, the rest on finish().
  const half = Math.floor(image.length / 2);
  req.write(Buffer.concat([head, image.subarray(0, half)]));
  return {
    finish() {
      req.end(Buffer.concat([image.subarray(half), tail]));
      return response;
    },
    abort() {
      response.catch(() => {});
      req.destroy();
    },
    response,
  };
}

/** Waits until `condition` holds, checking every few milliseconds, failing after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000, label = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export interface HeldPageUpload {
  /** Settles when the server answers, which for a refusal is before the body is complete. */
  response: Promise<{ status: number; text: string }>;
  /** Sends the rest of the body; resolves with the response. */
  finish(): Promise<{ status: number; text: string }>;
  /** Drops the connection, as a client that goes away. */
  abort(): void;
}

/**
 * A converter upload (POST /try) held open after its first bytes, as a slow client sends it:
 * the form as the page posts it without its script (the CSRF token inside the body), or as the
 * script posts it (the token in `x-csrf-token`). `declaredBytes` is the Content-Length sent
 * (default: the body's true length); a larger one is never completed.
 */
export function holdPageUpload(
  baseUrl: string,
  options: { cookie: string; csrf: string; image: Buffer; script?: boolean; declaredBytes?: number; address?: string },
): HeldPageUpload {
  const boundary = 'heldPageUploadBoundary';
  const token = options.script ? '' : `--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${options.csrf}\r\n`;
  const head = Buffer.from(`${token}--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="slow.png"\r\nContent-Type: image/png\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = options.declaredBytes ?? head.length + options.image.length + tail.length;
  const headers: Record<string, string> = {
    cookie: options.cookie,
    'content-type': `multipart/form-data; boundary=${boundary}`,
    'content-length': String(length),
  };
  if (options.script) Object.assign(headers, { 'x-csrf-token': options.csrf, accept: 'application/json' });
  if (options.address) headers['x-forwarded-for'] = options.address;
  const req: ClientRequest = httpRequest(new URL('/try', baseUrl), { method: 'POST', headers });
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  // A refusal may close the connection while the rest is still unsent: that is the point.
  req.on('error', () => {});
  req.flushHeaders();
  const half = Math.floor(options.image.length / 2);
  req.write(Buffer.concat([head, options.image.subarray(0, half)]));
  return {
    response,
    finish() {
      req.end(Buffer.concat([options.image.subarray(half), tail]));
      return response;
    },
    abort() {
      response.catch(() => {});
      req.destroy();
    },
  };
}
