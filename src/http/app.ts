// The Fastify app: plugins, hooks and routes. Thin: each route hands over to a use case.
import { randomUUID } from 'node:crypto';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { ConversionDeps } from '../conversion/vectorize.ts';
import { ApiError } from '../errors.ts';
import { createMetrics, gaugeOf, type Metrics } from '../metrics/metrics.ts';
import { admitUploads } from './admission.ts';
import { authenticate } from './auth.ts';
import { apiDocs } from './docs.ts';
import { handleError } from './errors.ts';
import { createLifecycle, drainingGuard, type Lifecycle } from './lifecycle.ts';
import { countRefusals, countResponses, operationsRoutes } from './operations.ts';
import { resultRoutes } from './results.ts';
import { answerClientError, apiSecurityHeaders, securityHeaders } from './security.ts';
import type { UploadPace } from './upload.ts';
import { vectorizeRoutes } from './vectorize.ts';

export interface AppDeps extends ConversionDeps {
  maxUploadBytes: number;
  retentionDays: number;
  /** Operability; each has a default so the app can be built without them. */
  metrics?: Metrics;
  lifecycle?: Lifecycle;
  maxConcurrentUploads?: number;
  uploadPace?: UploadPace;
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  version?: string;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const requestTimeoutMs = deps.requestTimeoutMs ?? 120_000;
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    // A request, body included, must arrive within requestTimeout: a client trickling bytes
    // cannot hold a connection forever. Node checks it every connectionsCheckingInterval.
    requestTimeout: requestTimeoutMs,
    http: { headersTimeout: deps.headersTimeoutMs ?? 10_000, connectionsCheckingInterval: Math.min(1_000, requestTimeoutMs) },
    clientErrorHandler: answerClientError,
    // Fastify's own closing answer is a bare 503; the draining guard's has Retry-After and a request id.
    return503OnClosing: false,
    // Router refusals (a malformed URL, an over-long path parameter) in the contract's shape
    // too; an over-long conversion id is a malformed one, which reads as not found.
    frameworkErrors: (error, request, reply) => {
      const mapped =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new ApiError(404, 'not found: the path parameter is too long')
          : new ApiError(400, 'bad request: the URL is malformed');
      void reply.header('x-request-id', request.id).headers(apiSecurityHeaders());
      handleError(mapped, request, reply);
    },
    // Bodies other than multipart are refused anyway; keep their buffering small.
    bodyLimit: 1024 * 1024,
  });

  const metrics = deps.metrics ?? createMetrics({ engineLoad: () => deps.engine.load(), processMetrics: false });
  const lifecycle = deps.lifecycle ?? createLifecycle();
  const { admission, admit } = admitUploads(deps.maxConcurrentUploads ?? 64, () => metrics.admissionRefusals.inc());
  gaugeOf(metrics, 'vectorize_uploads_in_flight', 'Vectorize requests admitted and not yet answered', () => admission.inFlight);
  gaugeOf(metrics, 'vectorize_http_requests_in_flight', 'Requests being handled (probes and metrics excluded)', () => lifecycle.inFlight);

  await app.register(multipart, { throwFileSizeLimit: true });

  // Hooks first: routes (the docs plugin's included) take the hooks present when declared.
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  securityHeaders(app);
  countResponses(app, metrics);
  countRefusals(app, metrics);
  drainingGuard(app, lifecycle);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request) => {
    throw new ApiError(404, `route not found: ${request.method} ${request.url.split('?')[0]}`);
  });

  await apiDocs(app, deps.version ?? '0.0.0');
  operationsRoutes(app, { store: deps.store, engine: deps.engine, lifecycle, metrics });

  await app.register(async (api) => {
    api.addHook('onRequest', authenticate(deps.store.db, deps.now));
    vectorizeRoutes(api, {
      ...deps,
      admit,
      onCredit: (event) => (event === 'spent' ? metrics.creditsSpent : metrics.creditsRefunded).inc(),
    });
    resultRoutes(api, { db: deps.store.db, now: deps.now, retentionDays: deps.retentionDays });
  });
  return app;
}
