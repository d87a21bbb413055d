// The JSON front-end's one mapping from errors to answers: every error leaves as
// `{error, request_id}` with the contract's status and headers. Used by the API, the operator
// routes and the app's own refusals (unknown routes, malformed URLs).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type ErrorCode } from '../../errors.ts';
import { isStoreUnavailable } from '../../store/database.ts';

export interface ErrorReply {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

const STATUS: Record<ErrorCode, number> = {
  invalid_input: 400,
  invalid_key: 401,
  insufficient_credits: 402,
  account_inactive: 403,
  not_found: 404,
  not_acceptable: 406,
  upload_too_slow: 408,
  conflict: 409,
  upload_too_large: 413,
  rate_limited: 429,
  engine_failed: 502,
  engine_timeout: 502,
  unavailable: 503,
};

export function statusOf(code: ErrorCode): number {
  return STATUS[code];
}

function fromDomain(error: DomainError): ErrorReply {
  const { details } = error;
  const headers: Record<string, string> = {};
  const body: Record<string, unknown> = { error: error.message };
  if (details.retryAfterSeconds !== undefined) headers['retry-after'] = String(details.retryAfterSeconds);
  switch (error.code) {
    case 'invalid_key':
      headers['www-authenticate'] = 'Bearer';
      break;
    case 'insufficient_credits':
      body.error = 'insufficient_credits';
      body.credits_remaining = details.creditsRemaining ?? 0;
      break;
    case 'rate_limited':
      if (details.limit) body.limit = details.limit;
      break;
    case 'upload_too_slow':
      // The rest of a trickling body is not worth reading.
      headers.connection = 'close';
      break;
    default:
      break;
  }
  return { status: STATUS[error.code], body, headers };
}

/** Fastify and @fastify/multipart errors that are the client's fault, with our wording. */
function clientError(error: FastifyError): ErrorReply | undefined {
  const code = error.code;
  const statusCode = error.statusCode ?? 500;
  if (code === 'FST_REQ_FILE_TOO_LARGE' || code === 'FST_ERR_CTP_BODY_TOO_LARGE' || statusCode === 413) {
    if (code === 'FST_FILES_LIMIT') return reply(400, 'image: send exactly one image file');
    if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') {
      return reply(400, 'too many form fields; send only `image` and optionally `params`');
    }
    return reply(413, 'image: the upload exceeds the 10 MB limit (10485760 bytes)');
  }
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || statusCode === 415 || statusCode === 406) {
    return reply(400, 'the request must be multipart/form-data with an `image` file field');
  }
  if (statusCode >= 400 && statusCode < 500) {
    return reply(400, `bad request: ${error.message}`);
  }
  // busboy reports a broken multipart body as a plain Error.
  if (/Unexpected end of form|Malformed part header|Multipart: Boundary not found|Unexpected end of multipart data/i.test(error.message)) {
    return reply(400, 'the multipart/form-data body is malformed or incomplete');
  }
  return undefined;
}

function reply(status: number, message: string): ErrorReply {
  return { status, body: { error: message }, headers: {} };
}

export function toErrorReply(error: unknown): ErrorReply {
  if (error instanceof DomainError) return fromDomain(error);
  if (isStoreUnavailable(error)) {
    return { status: 503, body: { error: 'the store is unavailable; retry shortly' }, headers: { 'retry-after': '5' } };
  }
  if (error instanceof Error) {
    const mapped = clientError(error as FastifyError);
    if (mapped) return mapped;
  }
  return reply(500, 'internal server error');
}

export function handleError(error: unknown, request: FastifyRequest, fastifyReply: FastifyReply): void {
  const { status, body, headers } = toErrorReply(error);
  if (status >= 500) request.log.error({ err: error, status }, 'request failed');
  else request.log.info({ status, error: body.error }, 'request refused');
  void fastifyReply.code(status).headers(headers).send({ ...body, request_id: request.id });
}
