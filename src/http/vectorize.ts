import type { FastifyInstance } from 'fastify';
import { vectorize, type ConversionDeps } from '../conversion/vectorize.ts';
import { readUpload } from './upload.ts';

export function vectorizeRoutes(app: FastifyInstance, deps: ConversionDeps & { maxUploadBytes: number }): void {
  app.post('/api/v1/vectorize', async (request) =>
    vectorize(deps, request.account, () => readUpload(request, deps.maxUploadBytes)),
  );
}
