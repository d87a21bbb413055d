// The converter's results downloaded again, in every format, without another credit (issue 20):
// GET /try/results/:id/download?format=svg|pdf|eps|dxf|png, with the output options that change
// only the file (unit, dpi, palette, maxColors, minFeature, centerline). For the signed-in
// account that made the conversion; any other id, malformed or not, is 404.
import type { FastifyInstance } from 'fastify';
import { downloadResult, OUTPUT_OPTIONS, type DownloadDeps, type OutputOptions } from '../../../conversion/downloads.ts';
import { PARAM_SPECS } from '../../../engine/params.ts';
import { FILE_FORMATS, type FileFormat } from '../../../engine/write/index.ts';
import { downloadFileName } from '../download-links.ts';
import { DomainError } from '../../../errors.ts';
import { REPRESENTATIONS } from '../../api/negotiate.ts';
import { pageErrorOf } from '../errors.ts';
import { hidden, paramFromText, queryText, refusalLog, type Pages } from '../pages.ts';

function mediaTypeOf(format: FileFormat): string {
  return REPRESENTATIONS.find((r) => r.negotiated.kind === 'file' && r.negotiated.format === format)?.mediaType ?? 'application/octet-stream';
}

/** The query's output options, as the API's `params` members would carry them; checked again with the kept ones. */
function outputOptions(query: Record<string, unknown>): OutputOptions {
  const options: Record<string, unknown> = {};
  for (const name of OUTPUT_OPTIONS) {
    const raw = queryText(query[name])?.trim();
    if (raw === undefined || raw === '') continue;
    const spec = PARAM_SPECS[name];
    if (spec.kind === 'boolean') options[name] = raw === 'true' || raw === 'on' ? true : raw === 'false' || raw === 'off' ? false : raw;
    else options[name] = paramFromText(spec, raw);
  }
  return options as OutputOptions;
}

export function downloadRoutes(app: FastifyInstance, pages: Pages, deps: DownloadDeps): void {
  app.get<{ Params: { id: string }; Querystring: Record<string, unknown> }>('/try/results/:id/download', hidden, async (request, reply) => {
    const account = pages.requireSignedIn(request, reply);
    if (!account) return reply;
    const wantsJson = (request.headers.accept ?? '').includes('application/json');
    try {
      const query = request.query ?? {};
      // No format is the SVG; a repeated one (`?format=pdf&format=png`) is refused like an unknown one.
      const asked = query.format === undefined ? 'svg' : queryText(query.format);
      if (asked === undefined || !(FILE_FORMATS as readonly string[]).includes(asked)) {
        throw new DomainError('invalid_input', `format: must be one of ${FILE_FORMATS.join(', ')}`);
      }
      const format = asked as FileFormat;
      const download = await downloadResult(deps, account, String(request.params.id), format, outputOptions(query));
      const name = downloadFileName(download.originalName, format);
      return reply
        .type(mediaTypeOf(format))
        .header('content-disposition', `attachment; filename="${name}"`)
        .header('x-content-type-options', 'nosniff')
        .send(download.file);
    } catch (error) {
      const known = pageErrorOf(error);
      if (!known || !wantsJson) throw error;
      request.log.info(refusalLog(known.status, error), 'download refused');
      if (known.retryAfterSeconds !== undefined) void reply.header('retry-after', String(known.retryAfterSeconds));
      return reply.code(known.status).send({ error: known.message });
    }
  });
}
