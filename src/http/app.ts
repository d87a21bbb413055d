// The Fastify app, split by audience: the operator routes (ops/), the JSON API (api/) and the
// web pages (web/), each with its own plugins, error mapping and security headers. The root
// holds what all share: request ids, draining, metrics, and the JSON answer for anything
// unmatched. Thin: each route hands over to a use case.
import { randomUUID } from 'node:crypto';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { ConversionDeps } from '../conversion/vectorize.ts';
import { DomainError } from '../errors.ts';
import { createMetrics, gaugeOf, type Metrics } from '../metrics/metrics.ts';
import { admitUploads } from './api/admission.ts';
import { apiRoutes } from './api/plugin.ts';
import { handleError } from './api/errors.ts';
import type { UploadPace } from './api/upload.ts';
import { createLifecycle, drainingGuard, type Lifecycle } from './lifecycle.ts';
import { apiDocs } from './ops/docs.ts';
import { countRefusal, countRefusals, countResponses, operationsRoutes } from './ops/routes.ts';
import { answerClientError, apiSecurityHeaders, securityHeaders } from './security.ts';
import { webApp, type WebDeps } from './web/plugin.ts';
import { stripeWebhookRoutes } from './webhooks/stripe.ts';
import type { Payments } from '../payments/stripe.ts';

export interface AppDeps extends ConversionDeps {
  maxUploadBytes: number;
  retentionDays: number;
  /** The pages: sessions, mail, links. */
  web: Pick<WebDeps, 'sessionStore' | 'sessionSecrets' | 'mailer' | 'publicUrl' | 'passwords' | 'throttle'>;
  /** Operability; each has a default so the app can be built without them. */
  metrics?: Metrics;
  lifecycle?: Lifecycle;
  maxConcurrentUploads?: number;
  /** Of those, at most this many from one account (default: all). */
  maxUploadsPerAccount?: number;
  uploadPace?: UploadPace;
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  version?: string;
  /** Fastify's trustProxy (TRUST_PROXY): whose X-Forwarded-For gives the client address. */
  trustProxy?: boolean | string;
  /** Stripe payments; undefined when STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are unset. */
  payments?: Payments;
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
          ? new DomainError('not_found', 'not found: the path parameter is too long')
          : new DomainError('invalid_input', 'bad request: the URL is malformed');
      void reply.header('x-request-id', request.id).headers(apiSecurityHeaders());
      handleError(mapped, request, reply);
    },
    // Bodies other than multipart are refused anyway; keep their buffering small.
    bodyLimit: 1024 * 1024,
    trustProxy: deps.trustProxy ?? false,
  });

  const metrics = deps.metrics ?? createMetrics({ engineLoad: () => deps.engine.load(), processMetrics: false });
  const lifecycle = deps.lifecycle ?? createLifecycle();
  const maxUploads = deps.maxConcurrentUploads ?? 64;
  const { admission, admit } = admitUploads(maxUploads, deps.maxUploadsPerAccount ?? maxUploads, () => metrics.admissionRefusals.inc());
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
    throw new DomainError('not_found', `route not found: ${request.method} ${request.url.split('?')[0]}`);
  });

  const onCredit = (event: 'spent' | 'refunded') => (event === 'spent' ? metrics.creditsSpent : metrics.creditsRefunded).inc();
  await apiDocs(app, deps.version ?? '0.0.0');
  operationsRoutes(app, { store: deps.store, engine: deps.engine, lifecycle, metrics });
  await app.register(apiRoutes, { ...deps, admit, onCredit });
  await app.register(stripeWebhookRoutes, { payments: deps.payments });
  await app.register(webApp, { ...deps, ...deps.web, admit, onCredit, countRefusal: (error) => countRefusal(metrics, error) });
  return app;
}
