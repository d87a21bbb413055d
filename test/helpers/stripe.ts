// A local stand-in for Stripe's API, reached by the service through STRIPE_API_BASE, and
// webhook events signed with the stripe library's own test-header helper. The stub answers the
// two calls the service makes (Checkout Sessions, customer portal sessions), honours
// Idempotency-Key as Stripe does, and serves the pages its URLs point at.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

export const STRIPE_SECRET = 'sk_test_stubKey123';
export const WEBHOOK_SECRET = 'whsec_stubSecret123';

export interface StubRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The form-encoded body as Stripe's library sends it: `metadata[account_id]` and so on. */
  params: URLSearchParams;
}

export interface StripeStub {
  url: string;
  requests: StubRequest[];
  /** The next N API calls answer 500. */
  failNext(count?: number): void;
  close(): Promise<void>;
}

export async function startStripeStub(): Promise<StripeStub> {
  const requests: StubRequest[] = [];
  const byIdempotencyKey = new Map<string, string>();
  let sessions = 0;
  let failures = 0;
  let base = '';
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const send = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type, 'request-id': `req_stub${requests.length}` });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    // The pages Checkout and the portal would show, for the browser tests.
    const page = /^\/(pay|portal)\/([\w-]+)$/.exec(path);
    if (req.method === 'GET' && page) {
      return send(200, `<!doctype html><title>Stub ${page[1] === 'pay' ? 'Checkout' : 'portal'}</title><h1>Stub ${page[1] === 'pay' ? 'Checkout' : 'customer portal'} ${page[2]}</h1>`, 'text/html');
    }
    const params = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    requests.push({ method: req.method ?? '', path, headers: req.headers, params });
    if (failures > 0) {
      failures -= 1;
      return send(500, { error: { type: 'api_error', message: 'stub failure' } });
    }
    const key = req.headers['idempotency-key'];
    if (typeof key === 'string' && byIdempotencyKey.has(key)) return send(200, JSON.parse(byIdempotencyKey.get(key) as string));
    let body: Record<string, unknown>;
    if (req.method === 'POST' && path === '/v1/checkout/sessions') {
      sessions += 1;
      const id = `cs_test_stub${sessions}`;
      body = {
        id,
        object: 'checkout.session',
        mode: params.get('mode'),
        client_reference_id: params.get('client_reference_id'),
        metadata: { account_id: params.get('metadata[account_id]'), product: params.get('metadata[product]') },
        amount_total: Number(params.get('line_items[0][price_data][unit_amount]')),
        currency: params.get('line_items[0][price_data][currency]'),
        payment_status: 'unpaid',
        status: 'open',
        url: `${base}/pay/${id}`,
      };
    } else if (req.method === 'POST' && path === '/v1/billing_portal/sessions') {
      body = { id: `bps_stub${requests.length}`, object: 'billing_portal.session', customer: params.get('customer'), url: `${base}/portal/${params.get('customer')}` };
    } else {
      return send(404, { error: { type: 'invalid_request_error', message: `the stub does not serve ${req.method} ${path}` } });
    }
    if (typeof key === 'string') byIdempotencyKey.set(key, JSON.stringify(body));
    send(200, body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    failNext(count = 1) {
      failures = count;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The service's environment for payments through the stub. */
export function stripeEnv(stub: StripeStub): Record<string, string> {
  return { STRIPE_SECRET_KEY: STRIPE_SECRET, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: stub.url };
}

let eventCount = 0;

/** A Stripe event around `object`, created `createdMs` (default now). */
export function stripeEvent(type: string, object: Record<string, unknown>, options: { id?: string; createdMs?: number } = {}) {
  eventCount += 1;
  return {
    id: options.id ?? `evt_test_${process.pid}_${eventCount}_${Math.random().toString(36).slice(2, 8)}`,
    object: 'event',
    api_version: '2026-10-28.endive',
    created: Math.floor((options.createdMs ?? Date.now()) / 1000),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object },
  };
}

export interface Delivery {
  status: number;
  body: Record<string, unknown>;
}

/**
 * POSTs an event to the service's webhook, signed by stripe.webhooks.generateTestHeaderString
 * (at `timestampMs`, default now; `secret` to sign with another one; `signature: null` for none).
 */
export async function deliver(
  serviceUrl: string,
  event: object,
  options: { timestampMs?: number; secret?: string; signature?: string | null; payload?: string } = {},
): Promise<Delivery> {
  const payload = options.payload ?? JSON.stringify(event);
  const header =
    options.signature === null
      ? undefined
      : (options.signature ??
        Stripe.webhooks.generateTestHeaderString({
          payload,
          secret: options.secret ?? WEBHOOK_SECRET,
          timestamp: Math.floor((options.timestampMs ?? Date.now()) / 1000),
        }));
  const response = await fetch(`${serviceUrl}/webhooks/stripe`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(header ? { 'stripe-signature': header } : {}) },
    body: payload,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** What Stripe sends when a Checkout Session for a one-time payment (a pack, lifetime) is paid. */
export function paidCheckoutSession(accountId: string, product: string, amount: number, ids: { session: string; paymentIntent: string; customer?: string }) {
  return {
    id: ids.session,
    object: 'checkout.session',
    mode: 'payment',
    client_reference_id: accountId,
    metadata: { account_id: accountId, product },
    amount_total: amount,
    currency: 'usd',
    customer: ids.customer ?? 'cus_test_1',
    payment_intent: ids.paymentIntent,
    payment_status: 'paid',
    status: 'complete',
    subscription: null,
    invoice: null,
  };
}

/** A charge of a PaymentIntent, refunded by `amountRefunded` so far. */
export function charge(paymentIntent: string, amount: number, amountRefunded = 0, id = `ch_${paymentIntent.slice(3)}`) {
  return {
    id,
    object: 'charge',
    amount,
    amount_refunded: amountRefunded,
    refunded: amountRefunded >= amount,
    currency: 'usd',
    payment_intent: paymentIntent,
    receipt_url: `https://pay.stripe.com/receipts/payment/${id}`,
    status: 'succeeded',
  };
}
