import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { CONVERSION_ID } from '../../conversion/ids.ts';
import { findConversion, retentionStart } from '../../conversion/records.ts';
import { DomainError } from '../../errors.ts';
import type { Schema } from '../../store/schema.ts';
import { resultResponse } from './responses.ts';
import { resultSchema } from './schemas.ts';

export function resultRoutes(
  app: FastifyInstance,
  deps: { db: Kysely<Schema>; now: () => number; retentionDays: number },
): void {
  app.get<{ Params: { id: string } }>('/api/v1/result/:id', { schema: resultSchema }, async (request) => {
    const { id } = request.params;
    // Unknown, malformed, expired and other accounts' ids all read alike: no existence leak.
    const record = CONVERSION_ID.test(id)
      ? await findConversion(deps.db, id, request.account.id, retentionStart(deps.now(), deps.retentionDays))
      : undefined;
    if (!record) throw new DomainError('not_found', `conversion not found: ${id}`);
    return resultResponse(record);
  });
}
