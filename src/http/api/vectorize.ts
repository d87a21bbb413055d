import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
// One route, one use case: the handler only says where the account and the upload come from.
import { vectorize, type ConversionDeps } from '../../conversion/vectorize.ts';
import { vectorizeSchema } from './schemas.ts';
import { readUpload, type UploadPace } from './upload.ts';

export interface VectorizeRouteDeps extends ConversionDeps {
  maxUploadBytes: number;
  uploadPace?: UploadPace;
  /** Upload admission control: throws (503) when too many uploads are in flight. */
  admit?: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

// The multipart body is described in the schema for the OpenAPI document only; it is read
// lazily by readUpload, after authentication, the plan limits and the credit reservation.
const documentOnly = () => () => true;

export function vectorizeRoutes(app: FastifyInstance, deps: VectorizeRouteDeps): void {
  app.post(
    '/api/v1/vectorize',
    { schema: vectorizeSchema, validatorCompiler: documentOnly },
    async (request, reply) =>
      vectorize(deps, request.account, async () => {
        // Upload capacity is part of reading the upload: it comes after limits and credits.
        await deps.admit?.(request, reply);
        return readUpload(request, deps.maxUploadBytes, deps.uploadPace);
      }),
  );
}
