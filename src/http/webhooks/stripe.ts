// POST /webhooks/stripe: Stripe's events, verified against the endpoint's signing secret on
// the raw body (so this route reads its body as bytes), then applied exactly once by the
// payments module. A bad or missing signature is 400 and changes nothing; a failure while
// applying is a 5xx, which makes Stripe deliver the event again.
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../errors.ts';
import type { Payments } from '../../payments/stripe.ts';
import { HANDLED_EVENTS } from '../../payments/events.ts';
import { errorResponse, requestIdHeader } from '../api/schemas.ts';

const webhookSchema = {
  summary: 'Stripe webhook endpoint',
  description:
    `Called by Stripe, not by API clients. The body is a Stripe event signed in the \`Stripe-Signature\` header with the endpoint's secret (STRIPE_WEBHOOK_SECRET); events older than the library's tolerance (300 s) are refused. Each event is applied once, whatever the number of deliveries. Handled: ${HANDLED_EVENTS.join(', ')}; others are acknowledged and ignored. 404 when payments are not configured.`,
  tags: ['payments'],
  headers: {
    type: 'object',
    properties: { 'stripe-signature': { type: 'string', description: 'Stripe’s signature of the body: t=…,v1=…' } },
  },
  body: { type: 'object', description: 'A Stripe event (https://docs.stripe.com/api/events/object)', additionalProperties: true },
  response: {
    200: {
      description: 'The event was applied now, or had been already (`duplicate`), or needs nothing (`ignored`)',
      type: 'object',
      required: ['received', 'result'],
      properties: {
        received: { type: 'boolean', const: true },
        result: { type: 'string', enum: ['applied', 'ignored', 'duplicate'] },
      },
      headers: requestIdHeader,
    },
    400: errorResponse('Missing or invalid signature, or an event older than the tolerance: nothing changed'),
    404: errorResponse('Payments are not configured on this service'),
    500: errorResponse('Unexpected fault: nothing was recorded, Stripe delivers the event again'),
    503: errorResponse('The store is unavailable: nothing was recorded, Stripe delivers the event again'),
  },
};

// Validation is the signature's job: the body schema is for the OpenAPI document only.
const documentOnly = () => () => true;

export async function stripeWebhookRoutes(app: FastifyInstance, deps: { payments: Payments | undefined }): Promise<void> {
  // The signature covers the exact bytes sent: keep them, whatever the content type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.post('/webhooks/stripe', { schema: webhookSchema, validatorCompiler: documentOnly }, async (request) => {
    const { payments } = deps;
    if (!payments) throw new DomainError('not_found', 'payments are not configured on this service');
    const signature = request.headers['stripe-signature'];
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const event = await payments.verifyEvent(body, typeof signature === 'string' ? signature : undefined);
    const outcome = await payments.applyEvent(event);
    const log = outcome.detail.includes('no longer exists') ? request.log.warn.bind(request.log) : request.log.info.bind(request.log);
    log({ stripeEvent: event.id, type: event.type, result: outcome.result, detail: outcome.detail, accountId: outcome.accountId }, 'stripe event');
    return { received: true, result: outcome.result };
  });
}
