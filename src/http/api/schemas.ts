// The routes' own schemas: Fastify serializes every response through them (so a field not
// listed here never leaves the service) and @fastify/swagger builds /openapi.json from them,
// so the published contract and the code cannot drift apart.
import { PARAM_SPECS } from '../../engine/params.ts';
import { RESULT_NOTE } from './responses.ts';

export const requestIdHeader = { 'x-request-id': { type: 'string', description: 'Request id, also in logs and error bodies' } };
export const retryAfterHeader = { 'retry-after': { type: 'integer', description: 'Seconds to wait before retrying' } };

export function errorResponse(description: string, extra: { headers?: Record<string, unknown>; properties?: Record<string, unknown> } = {}) {
  return {
    description,
    type: 'object',
    required: ['error'],
    properties: {
      error: { type: 'string', description: 'What went wrong, for a human' },
      request_id: { type: 'string', description: 'The request id, as in the X-Request-Id header' },
      ...extra.properties,
    },
    headers: { ...requestIdHeader, ...extra.headers },
  };
}

const unauthorized = errorResponse('API key missing, unknown or revoked', {
  headers: { 'www-authenticate': { type: 'string', description: 'Always `Bearer`' } },
});
const forbidden = errorResponse('Account suspended or banned; the message names the state');
const tooMany = errorResponse('Burst rate, concurrency or daily quota exceeded; the message says "retry after N seconds"', {
  headers: retryAfterHeader,
  properties: { limit: { type: 'string', enum: ['burst', 'concurrency', 'daily_quota'], description: 'Which limit refused the request' } },
});
const internal = errorResponse('Unexpected fault; no internals are disclosed');
const unavailable = errorResponse('Conversion queue full, upload capacity reached, store unavailable, or shutting down', {
  headers: retryAfterHeader,
});

/** What the output options and the print and cut options do (the source's members are described in docs/parameters.md). */
const MEMBER_DESCRIPTIONS: Partial<Record<string, string>> = {
  stacking:
    '`stacked`: shapes overlap, each lying under the ones painted after it (no seams). `cutouts`: no two shapes overlap (for cutters, plotters, embroidery); outlines become polygons.',
  groupBy: '`color`: shapes of one fill colour are grouped (`<g>` in SVG, one layer in DXF). `none`: no groups.',
  palette:
    'Every fill is one of these colours (`#rrggbb`): the nearest in Oklab. Solid fills only (no gradients, no partial opacity); areas that end up in one colour are one shape.',
  maxColors: 'At most this many distinct fills, chosen for the image (a logo keeps its colours exactly, a photo gets its dominant colours); no gradients.',
  centerline:
    'Ink traced as open strokes along the middle of its lines (`fill="none"`, the ink colour, `stroke-width` from the ink), ordered for short pen-up travel; ink much wider than a line stays filled; the paper is not drawn.',
  unit: 'The physical size (pixels ÷ `dpi`): SVG `width`/`height` in this unit (the viewBox stays in pixels), PDF page and EPS bounding box of that size, DXF coordinates in it with `$INSUNITS` (mm 4, in 1). Also the unit of `minFeature`.',
  dpi: 'Pixels per inch for `unit`.',
  minFeature: 'Pieces and holes narrower than this (in `unit`) are removed (a cut-out piece joins its neighbour).',
  preset:
    'Defaults for the print and cut members (members given explicitly win): `vinyl` and `laser` cut-outs in mm, `plotter` centerline strokes in mm, `screenprint` few stacked spot colours, `embroidery` few cut-out colours; values in docs/parameters.md.',
};

/** A member's schema from its entry in the engine's table. */
function memberSchema(name: string, spec: (typeof PARAM_SPECS)[keyof typeof PARAM_SPECS]): Record<string, unknown> {
  const description = MEMBER_DESCRIPTIONS[name];
  const described = description ? { description } : {};
  switch (spec.kind) {
    case 'integer':
      return { type: 'integer', minimum: spec.min, maximum: spec.max, ...(spec.default !== undefined ? { default: spec.default } : {}), ...described };
    case 'number':
      return { type: 'number', minimum: spec.min, default: spec.default, ...described };
    case 'boolean':
      return { type: 'boolean', default: spec.default, ...described };
    case 'enum':
      return { type: 'string', enum: [...spec.values], ...(spec.default !== undefined ? { default: spec.default } : {}), ...described };
    case 'colours':
      return {
        type: 'array',
        minItems: spec.minItems,
        maxItems: spec.maxItems,
        items: { type: 'string', pattern: '^#[0-9a-fA-F]{6}$' },
        examples: [['#000000', '#ffffff', '#e4002b']],
        ...described,
      };
  }
}

/** The `params` members with their types, ranges and defaults, from the engine's own table. */
export const traceParamsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(Object.entries(PARAM_SPECS).map(([name, spec]) => [name, memberSchema(name, spec)])),
} as const;

/** The cut report (docs/parameters.md, "Cut report"). */
export const cutReportSchema = {
  type: 'object',
  description: 'What a cutter, plotter or embroidery machine meets in the file. Present when `unit` is not `px` or a `preset` was given.',
  required: ['paths', 'open_paths', 'smallest_feature', 'removed_below_min_feature', 'islands', 'overlaps'],
  properties: {
    paths: { type: 'integer', description: 'Subpaths in the file: closed outlines (the paper rectangle included) and open strokes' },
    open_paths: { type: 'integer', description: 'Open subpaths: centerline strokes' },
    smallest_feature: {
      type: ['number', 'null'],
      description: 'The narrowest filled piece (an outline with its holes) or hole, as the diameter of the largest disc it holds, in `unit`; null when nothing is filled',
    },
    removed_below_min_feature: { type: 'integer', description: 'Pieces and holes removed by `minFeature`' },
    islands: { type: 'integer', description: 'Holes in the pieces: cut out of a sheet (a stencil), what lies inside each would fall out' },
    overlaps: { type: 'integer', description: 'Filled shapes that another shape lies on (0 for cut-outs)' },
  },
} as const;

const vectorizeJson = {
  type: 'object',
  required: ['id', 'svg', 'width', 'height', 'node_count', 'processing_time_ms', 'fidelity', 'credits_remaining'],
  properties: {
    id: { type: 'string', pattern: '^vec_[a-z0-9]+_[a-z0-9]{6}$', examples: ['vec_mhx2k1a0_4f9q2z'] },
    svg: { type: 'string', description: 'Complete SVG 1.1 document with viewBox="0 0 W H"' },
    width: { type: 'integer', description: 'Original width in pixels, after EXIF orientation' },
    height: { type: 'integer', description: 'Original height in pixels, after EXIF orientation' },
    node_count: { type: 'integer', description: 'Anchor points over all paths of the SVG' },
    processing_time_ms: { type: 'integer', description: 'Decode, trace and SVG writing time' },
    fidelity: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      description:
        'The engine’s own measure of how closely the SVG, rendered, matches the image: 1 is identical. Structure (SSIM of lightness) and colour (Oklab difference), tile by tile, the worst tiles weighing extra; see docs/engine.md',
    },
    credits_remaining: {
      type: ['integer', 'null'],
      description: 'Balance after this conversion on metered plans; null on unmetered plans. A test key spends nothing: the balance as it stands',
    },
    test: {
      type: 'boolean',
      const: true,
      description: 'Present, `true`, only when made with a test key (`vk_test_…`): free, counted toward no plan quota, the result watermarked with a diagonal TEST pattern in every format',
    },
    report: cutReportSchema,
  },
};

/** Never used to validate: the upload is read lazily by upload.ts, after the limits. */
const vectorizeBody = {
  type: 'object',
  required: ['image'],
  additionalProperties: false,
  properties: {
    image: {
      type: 'string',
      format: 'binary',
      description: 'PNG, JPEG or WebP (detected from the bytes), at most 10 MB (10485760 bytes)',
    },
    params: {
      type: 'string',
      contentMediaType: 'application/json',
      contentSchema: traceParamsSchema,
      description:
        'A JSON object of tracing parameters; omitted members take their defaults. Unknown members, wrong types and out-of-range values are refused with 400.',
      examples: ['{"colorPrecision": 6, "mode": "auto"}'],
    },
  },
};

export const vectorizeSchema = {
  summary: 'Convert a raster image to SVG, PDF, EPS, DXF or PNG',
  description:
    'Multipart upload of one `image` file and an optional `params` field. The `Accept` header chooses the JSON response (the default) or a file: `image/svg+xml`, `application/pdf`, `application/postscript` (EPS), `image/vnd.dxf` or `application/dxf`, `image/png`. Errors are always JSON. A metered (Free) account spends one credit per successful conversion; failed requests spend none. A test key (`vk_test_…`) spends nothing and counts toward no plan quota; it has limits of its own (1 request per second, 1 at a time, 50 per UTC day per account) and its result is watermarked with a diagonal TEST pattern in every format.',
  tags: ['conversion'],
  security: [{ bearerAuth: [] }],
  consumes: ['multipart/form-data'],
  body: vectorizeBody,
  response: {
    200: {
      description:
        'The conversion. With no `Accept` header, `*/*` or `application/json`: the JSON object. With `Accept` naming a file type: the file itself, its fields as `X-…` headers.',
      headers: {
        ...requestIdHeader,
        'x-conversion-id': { type: 'string', description: 'File responses: the conversion id (`id` of the JSON response)' },
        'x-node-count': { type: 'integer', description: 'File responses: anchor points over all paths of the SVG written from the same geometry' },
        'x-processing-time-ms': { type: 'integer', description: 'File responses: decode, trace and writing time' },
        'x-fidelity': { type: 'number', description: 'File responses: the engine’s fidelity score of the result, 0–1 (`fidelity` of the JSON response)' },
        'x-credits-remaining': {
          type: 'string',
          description: 'File responses: the balance after this conversion on metered plans; empty on unmetered plans',
        },
        'x-test': { type: 'string', const: 'true', description: 'File responses made with a test key only: `true` (the file is watermarked)' },
      },
      content: {
        'application/json': { schema: vectorizeJson },
        'image/svg+xml': { schema: { type: 'string', description: 'The SVG document (the `svg` of the JSON response)' } },
        'application/pdf': { schema: { type: 'string', format: 'binary', description: 'Vector PDF, page size the pixel size at 72 dpi' } },
        'application/postscript': { schema: { type: 'string', format: 'binary', description: 'EPS (EPSF-3.0) with a %%BoundingBox' } },
        'image/vnd.dxf': { schema: { type: 'string', description: 'DXF: closed polylines, one layer per fill colour' } },
        'application/dxf': { schema: { type: 'string', description: 'The same DXF as image/vnd.dxf' } },
        'image/png': { schema: { type: 'string', format: 'binary', description: 'PNG rendered at the original pixel size' } },
      },
    },
    400: errorResponse(
      'Missing `image`, bad `params`, unknown form field, empty file, unsupported format, corrupt or truncated image, or too many pixels',
    ),
    401: unauthorized,
    402: errorResponse('Metered account without credits: `{"error":"insufficient_credits","credits_remaining":0}`', {
      properties: { credits_remaining: { type: 'integer' } },
    }),
    403: forbidden,
    406: errorResponse('The `Accept` header names nothing this endpoint returns; the message lists what it can return. Refused before any credit is reserved'),
    408: errorResponse('The upload arrived too slowly (below the minimum rate or past the request timeout)'),
    413: errorResponse('Upload over 10 MB (10485760 bytes)'),
    429: tooMany,
    500: internal,
    502: errorResponse('The engine failed or exceeded its time limit on a decodable image'),
    503: unavailable,
  },
};

export const resultSchema = {
  summary: 'Metadata of an earlier conversion',
  description: 'Metadata only, never the SVG. Unknown, malformed, expired and other accounts’ ids all answer 404.',
  tags: ['conversion'],
  security: [{ bearerAuth: [] }],
  params: {
    type: 'object',
    required: ['id'],
    properties: { id: { type: 'string', description: 'The `id` returned by POST /api/v1/vectorize' } },
  },
  response: {
    200: {
      description: 'The conversion’s metadata',
      type: 'object',
      required: [
        'id',
        'original_name',
        'file_size',
        'created_at',
        'note',
        'width',
        'height',
        'node_count',
        'processing_time_ms',
        'fidelity',
        'params',
        'resolved',
      ],
      properties: {
        id: { type: 'string' },
        original_name: { type: 'string', description: 'The upload’s filename exactly as sent' },
        file_size: { type: 'integer', description: 'Bytes of the upload' },
        created_at: { type: 'string', format: 'date-time', examples: ['2026-11-21T04:25:13.123Z'] },
        note: { type: 'string', examples: [RESULT_NOTE] },
        width: { type: 'integer' },
        height: { type: 'integer' },
        node_count: { type: 'integer' },
        processing_time_ms: { type: 'integer' },
        fidelity: { type: ['number', 'null'], minimum: 0, maximum: 1, description: 'As in the vectorize response; null for conversions recorded before it was measured' },
        params: { ...traceParamsSchema, description: 'The effective parameters (defaults filled in)' },
        resolved: {
          type: 'object',
          description: 'What `auto` resolved to for this image',
          required: ['mode', 'curveMode'],
          properties: { mode: { type: 'string' }, curveMode: { type: 'string' } },
        },
        test: { type: 'boolean', const: true, description: 'Present, `true`, only for a conversion made with a test key (free, watermarked)' },
        report: cutReportSchema,
      },
      headers: requestIdHeader,
    },
    401: unauthorized,
    403: forbidden,
    404: errorResponse('Unknown, malformed, expired, or another account’s conversion'),
    429: tooMany,
    500: internal,
    503: unavailable,
  },
};

const nullableLimit = (description: string) => ({ type: ['integer', 'null'], minimum: 0, description });

export const accountSchema = {
  summary: 'The account behind the key: plan, status, credits and limits',
  description:
    'What the key’s account may do now. `null` where the plan sets no limit (and `credits_remaining` on unmetered plans). Counts successful conversions of live keys; test keys’ own use and limits are in `test_keys`.',
  tags: ['account'],
  security: [{ bearerAuth: [] }],
  response: {
    200: {
      description: 'The account’s plan, status, balance, today’s use and limits',
      type: 'object',
      required: ['plan', 'status', 'credits_remaining', 'conversions_today', 'daily_quota', 'quota_resets_at', 'burst_per_second', 'concurrency', 'test_key', 'test_keys'],
      properties: {
        plan: { type: 'string', examples: ['free'] },
        status: { type: 'string', enum: ['active', 'suspended', 'banned'] },
        credits_remaining: nullableLimit('Credit balance on metered plans; null on unmetered plans'),
        conversions_today: { type: 'integer', minimum: 0, description: 'Successful conversions since 00:00 UTC (test keys not counted)' },
        daily_quota: nullableLimit('Conversions allowed per UTC day; null for none'),
        quota_resets_at: { type: 'string', format: 'date-time', description: 'The next 00:00 UTC, when the daily count starts again', examples: ['2026-11-22T00:00:00.000Z'] },
        burst_per_second: nullableLimit('Requests admitted per sliding second; null for none'),
        concurrency: nullableLimit('Conversions at a time; null for none'),
        test_key: { type: 'boolean', description: 'The key of this request is a test key' },
        test_keys: {
          type: 'object',
          description: 'Test keys of the account: free, watermarked conversions under limits of their own',
          required: ['conversions_today', 'daily_cap', 'burst_per_second', 'concurrency'],
          properties: {
            conversions_today: { type: 'integer', minimum: 0 },
            daily_cap: { type: 'integer' },
            burst_per_second: { type: 'integer' },
            concurrency: { type: 'integer' },
          },
        },
      },
      headers: requestIdHeader,
    },
    401: unauthorized,
    403: forbidden,
    500: internal,
    503: unavailable,
  },
};
