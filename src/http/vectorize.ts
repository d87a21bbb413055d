import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { vectorize, type ConversionDeps } from '../conversion/vectorize.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { vectorizeSchema } from './schemas.ts';
import { readUpload, type UploadPace } from './upload.ts';

export interface VectorizeRouteDeps extends ConversionDeps {
  maxUploadBytes: number;
  uploadPace?: UploadPace;
  /** Upload admission control: throws (503) when too many uploads are in flight. */
  admit?: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  metrics?: Metrics;
}

// The multipart body is described in the schema for the OpenAPI document only; it is read
// lazily by readUpload, after authentication, the plan limits and the credit reservation.
const documentOnly = () => () => true;

export function vectorizeRoutes(app: FastifyInstance, deps: VectorizeRouteDeps): void {
  app.post(
    '/api/v1/vectorize',
    { schema: vectorizeSchema, validatorCompiler: documentOnly },
    async (request, reply) => {
      // The use case reads the upload only once a credit is reserved: reading it means a
      // metered failure from here on is refunded.
      let reserved = false;
      const metered = request.account.plan.metered;
      try {
        const response = await vectorize(deps, request.account, async () => {
          reserved = true;
          // Upload capacity is part of reading the upload: it comes after limits and credits.
          await deps.admit?.(request, reply);
          return readUpload(request, deps.maxUploadBytes, deps.uploadPace);
        });
        if (metered) deps.metrics?.creditsSpent.inc();
        return response;
      } catch (error) {
        if (metered && reserved) deps.metrics?.creditsRefunded.inc();
        throw error;
      }
    },
  );
}
