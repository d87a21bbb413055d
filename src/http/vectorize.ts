import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { vectorize, type ConversionDeps } from '../conversion/vectorize.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { vectorizeSchema } from './schemas.ts';
import { readUpload, type UploadPace } from './upload.ts';

export interface VectorizeRouteDeps extends ConversionDeps {
  maxUploadBytes: number;
  uploadPace?: UploadPace;
  /** Runs before the upload is read (admission control). */
  admit?: onRequestHookHandler;
  metrics?: Metrics;
}

// The multipart body is described in the schema for the OpenAPI document only; it is read
// lazily by readUpload, after authentication, admission and the credit reservation.
const documentOnly = () => () => true;

export function vectorizeRoutes(app: FastifyInstance, deps: VectorizeRouteDeps): void {
  app.post(
    '/api/v1/vectorize',
    { schema: vectorizeSchema, validatorCompiler: documentOnly, onRequest: deps.admit ? [deps.admit] : [] },
    async (request) => {
      // The use case reads the upload only once a credit is reserved: reading it means a
      // metered failure from here on is refunded.
      let reserved = false;
      const metered = request.account.plan.metered;
      try {
        const response = await vectorize(deps, request.account, () => {
          reserved = true;
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
