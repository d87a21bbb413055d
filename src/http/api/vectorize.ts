import type { FastifyInstance } from 'fastify';
// One route, one use case: the handler only says where the account, the upload and the wanted
// representation come from.
import { vectorize, type ConversionDeps } from '../../conversion/vectorize.ts';
import { DomainError } from '../../errors.ts';
import { vectorizeResponse } from './responses.ts';
import { negotiate, NotAcceptable, type Negotiated } from './negotiate.ts';
import { vectorizeSchema } from './schemas.ts';
import type { AdmitUpload } from './admission.ts';
import { readUpload, refuseDeclaredOversize, type UploadPace } from './upload.ts';

export interface VectorizeRouteDeps extends ConversionDeps {
  maxUploadBytes: number;
  uploadPace?: UploadPace;
  /** Upload admission control: throws (503) when too many uploads are in flight, in all or of the account. */
  admit?: AdmitUpload;
}

// The multipart body is described in the schema for the OpenAPI document only; it is read
// lazily by readUpload, after authentication, the plan limits and the credit reservation.
const documentOnly = () => () => true;

export function vectorizeRoutes(app: FastifyInstance, deps: VectorizeRouteDeps): void {
  app.post(
    '/api/v1/vectorize',
    { schema: vectorizeSchema, validatorCompiler: documentOnly },
    async (request, reply) => {
      // Before limits and credits: a 406 spends nothing.
      const wanted = negotiateOr406(request.headers.accept);
      const format = wanted.kind === 'file' ? wanted.format : undefined;
      const conversion = await vectorize(
        deps,
        request.account,
        async () => {
          // Upload capacity is part of reading the upload: it comes after limits and credits.
          refuseDeclaredOversize(request, deps.maxUploadBytes);
          await deps.admit?.(request.account.id, reply);
          return readUpload(request, deps.maxUploadBytes, deps.uploadPace);
        },
        format,
        { test: request.testKey },
      );
      const { file } = conversion;
      if (wanted.kind === 'json' || !file) return vectorizeResponse(conversion);
      // A file response carries the JSON response's fields (less the SVG) as headers.
      return reply
        .type(wanted.mediaType)
        .headers({
          'x-conversion-id': conversion.id,
          'x-node-count': String(conversion.nodeCount),
          'x-processing-time-ms': String(conversion.processingTimeMs),
          'x-fidelity': String(conversion.fidelity),
          'x-credits-remaining': conversion.creditsRemaining === null ? '' : String(conversion.creditsRemaining),
          ...(conversion.test ? { 'x-test': 'true' } : {}),
        })
        .send(file);
    },
  );
}

function negotiateOr406(accept: string | undefined): Negotiated {
  try {
    return negotiate(accept);
  } catch (error) {
    if (error instanceof NotAcceptable) throw new DomainError('not_acceptable', error.message);
    throw error;
  }
}
