// Every error leaves as `{error, request_id}` with the contract's status, in this one place.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { isStoreUnavailable } from '../store/database.ts';

interface ErrorReply {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
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

function reply(status: number, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): ErrorReply {
  return { status, body: { error: message, ...extra }, headers };
}

export function toErrorReply(error: unknown): ErrorReply {
  if (error instanceof ApiError) return reply(error.status, error.message, error.extra, error.headers);
  if (isStoreUnavailable(error)) {
    return reply(503, 'the store is unavailable; retry shortly', {}, { 'retry-after': '5' });
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
