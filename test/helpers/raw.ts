// HTTP over a bare socket, for what fetch cannot do: send a body a byte at a time, stop
// half-way, or send a multipart body that is broken on purpose.
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function multipartBody(
  boundary: string,
  parts: { name: string; filename?: string; contentType?: string; data: Buffer | string }[],
): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const filename = part.filename === undefined ? '' : `; filename="${part.filename}"`;
    const type = part.contentType ? `\r\nContent-Type: ${part.contentType}` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${filename}${type}\r\n\r\n`));
    chunks.push(Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

export interface RawExchange {
  socket: Socket;
  /** Resolves when the server sent `100 Continue`: it has parsed the headers and taken the request. */
  continued: Promise<void>;
  /** The final response, once the server ended it or closed the connection. */
  response: Promise<RawResponse>;
  /** Resolves when the server closed the connection. */
  closed: Promise<void>;
}

function parseResponse(text: string): RawResponse | undefined {
  // Skip interim 1xx responses.
  let rest = text;
  while (/^HTTP\/1\.1 1\d\d /.test(rest)) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    rest = rest.slice(end + 4);
  }
  const headEnd = rest.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const [statusLine = '', ...lines] = rest.slice(0, headEnd).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = rest.slice(headEnd + 4);
  const length = Number(headers['content-length']);
  if (Number.isFinite(length) && Buffer.byteLength(body) < length) return undefined;
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

/**
 * Opens a connection to `baseUrl` and writes `head` (request line and headers), then the blank
 * line that ends the headers unless `endHeaders` is false.
 */
export function rawRequest(baseUrl: string, head: string, endHeaders = true): RawExchange {
  const url = new URL(baseUrl);
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => {
    // A reset after the server answered is expected in these tests; `closed` still resolves.
  });
  socket.write(endHeaders ? `${head}\r\n\r\n` : head);
  let text = '';
  let resolveContinue: () => void = () => {};
  const continued = new Promise<void>((resolve) => {
    resolveContinue = resolve;
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const response = new Promise<RawResponse>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.startsWith('HTTP/1.1 100')) resolveContinue();
      const parsed = parseResponse(text);
      if (parsed) resolve(parsed);
    });
    socket.once('close', () => {
      const parsed = parseResponse(text);
      if (parsed) resolve(parsed);
      else reject(new Error(`connection closed without a complete response: ${JSON.stringify(text.slice(0, 200))}`));
    });
  });
  response.catch(() => {});
  return { socket, continued, response, closed };
}
