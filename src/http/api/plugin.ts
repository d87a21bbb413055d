// The JSON API under /api/v1: bearer-key authentication, then one file per endpoint. Errors
// go through the root's JSON mapping (./errors.ts); headers are the root's (default-src 'none').
import type { FastifyInstance } from 'fastify';
import { accountRoutes } from './account.ts';
import { authenticate } from './auth.ts';
import { resultRoutes } from './results.ts';
import { vectorizeRoutes, type VectorizeRouteDeps } from './vectorize.ts';

export interface ApiDeps extends VectorizeRouteDeps {
  retentionDays: number;
}

export async function apiRoutes(api: FastifyInstance, deps: ApiDeps): Promise<void> {
  api.addHook('onRequest', authenticate(deps.store.db, deps.now));
  vectorizeRoutes(api, deps);
  resultRoutes(api, { db: deps.store.db, now: deps.now, retentionDays: deps.retentionDays });
  accountRoutes(api, { db: deps.store.db, now: deps.now });
}
