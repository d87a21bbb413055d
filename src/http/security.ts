// Security headers, set when a request arrives so that every answer carries them, errors and
// 404s included. Each audience sets its own policy in its own context (a child's onRequest hook
// runs after the root's): the JSON API and everything unmatched get `default-src 'none'`, the
// API reference and the pages get policies that let them run their own scripts, never inline.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';

export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
};

/** The root's headers: the API's, for JSON answers that no browser should render, frame or cache. */
export function securityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', async (_request, reply) => {
    void reply.headers(apiSecurityHeaders());
  });
}

/** Replaces the content security policy (and drops `no-store` unless `cache` says otherwise) for one context. */
export function contextSecurityHeaders(app: FastifyInstance, csp: string, options: { noStore: boolean }): void {
  app.addHook('onRequest', async (_request, reply: FastifyReply) => {
    void reply.header('content-security-policy', csp);
    if (!options.noStore) reply.removeHeader('cache-control');
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
