// The Fastify app: plugins, hooks and routes. Thin: each route hands over to a use case.
import { randomUUID } from 'node:crypto';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ConversionDeps } from '../conversion/vectorize.ts';
import { ApiError } from '../errors.ts';
import { authenticate } from './auth.ts';
import { handleError } from './errors.ts';
import { resultRoutes } from './results.ts';
import { vectorizeRoutes } from './vectorize.ts';

export interface AppDeps extends ConversionDeps {
  logger: Logger;
  maxUploadBytes: number;
  retentionDays: number;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    requestTimeout: 120_000,
    // Bodies other than multipart are refused anyway; keep their buffering small.
    bodyLimit: 1024 * 1024,
  });

  await app.register(multipart, { throwFileSizeLimit: true });

  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request) => {
    throw new ApiError(404, `route not found: ${request.method} ${request.url.split('?')[0]}`);
  });
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });

  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));

  await app.register(async (api) => {
    api.addHook('onRequest', authenticate(deps.store.db, deps.now));
    vectorizeRoutes(api, deps);
    resultRoutes(api, { db: deps.store.db, now: deps.now, retentionDays: deps.retentionDays });
  });
  return app;
}
