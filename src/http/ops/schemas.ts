// Schemas of the operator routes, for validation of their answers and the OpenAPI document.
import { errorResponse, retryAfterHeader } from '../api/schemas.ts';

export const healthSchema = {
  summary: 'Liveness: the process answers',
  tags: ['operations'],
  response: {
    200: { description: 'Alive', type: 'object', required: ['status'], properties: { status: { type: 'string', const: 'ok' } } },
  },
};

const readinessChecks = {
  type: 'object',
  required: ['store', 'workers', 'draining'],
  properties: {
    store: { type: 'string', enum: ['ok', 'unreachable'] },
    workers: { type: 'integer', description: 'Worker processes alive' },
    draining: { type: 'boolean' },
  },
};

export const readySchema = {
  summary: 'Readiness: store reachable, workers up, not draining',
  tags: ['operations'],
  response: {
    200: {
      description: 'Ready to take conversions',
      type: 'object',
      required: ['status', 'checks'],
      properties: { status: { type: 'string', const: 'ready' }, checks: readinessChecks },
    },
    503: errorResponse('Not ready: the store is unreachable, no worker is up, or the service is draining', {
      headers: retryAfterHeader,
      properties: { checks: readinessChecks },
    }),
  },
};

export const metricsSchema = {
  summary: 'Prometheus metrics (text exposition format)',
  tags: ['operations'],
  produces: ['text/plain'],
  response: { 200: { description: 'Metrics in the Prometheus text format', type: 'string' } },
};
