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
