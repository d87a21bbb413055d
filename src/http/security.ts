// Security headers on every response, in this one hook. API responses are JSON that no
// browser should render, frame or cache; the /docs page gets a policy that lets it run its
// own scripts and styles (served from the package, never a CDN) and nothing else.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
// Swagger UI sets inline style attributes; its scripts are files under /docs/static.
const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
};

export function isDocsPath(url: string): boolean {
  return url === '/docs' || url.startsWith('/docs/') || url.startsWith('/docs?');
}

export function securityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    void reply.headers(SECURITY_HEADERS);
    const docs = isDocsPath(request.url);
    void reply.header('content-security-policy', docs ? DOCS_CSP : API_CSP);
    // Conversions and their metadata belong to one account: no shared cache may keep them.
    if (!docs) void reply.header('cache-control', 'no-store');
    return payload;
  });
}

/** The headers of an API response, for answers given outside the hook (router and socket errors). */
export function apiSecurityHeaders(): Record<string, string> {
  return { ...SECURITY_HEADERS, 'content-security-policy': API_CSP, 'cache-control': 'no-store' };
}

/** The same headers as a raw HTTP header block, for answers written to the socket directly. */
export function rawSecurityHeaders(): string {
  return Object.entries(apiSecurityHeaders())
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
}

interface ClientSocket {
  writable: boolean;
  destroyed: boolean;
  write(data: string): boolean;
  destroy(error?: Error): void;
  _httpMessage?: { headersSent?: boolean } | null;
}

/**
 * Errors Node reports before Fastify sees a request (a body still arriving at the request
 * timeout, headers too slow or too large, bad HTTP), answered in the contract's shape.
 */
export function answerClientError(error: Error & { code?: string }, socket: ClientSocket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'the request did not arrive in time; send it faster or in full']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'the request headers are too large']
        : [400, 'Bad Request', 'malformed HTTP request'];
  // A response already under way cannot be replaced; only the connection can go.
  if (socket.writable && !socket._httpMessage?.headersSent) {
    const body = JSON.stringify({ error: message, request_id: randomUUID() });
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n${rawSecurityHeaders()}\r\n${body}`,
    );
  }
  socket.destroy(error);
}
