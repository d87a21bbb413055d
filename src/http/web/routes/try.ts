// The converter page: the same conversion use case as POST /api/v1/vectorize, for the
// logged-in account (credits, burst, concurrency and daily quota alike). The browser script
// posts the form with XMLHttpRequest (for its upload progress) and asks for JSON to draw the
// preview; without it, the form posts as usual and the answer is the page with the result.
// Pictures chosen on the home page and its samples arrive here too (client/handoff.ts, SAMPLES).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { imageMediaType, vectorize, type ConversionDeps } from '../../../conversion/vectorize.ts';
import { PARAM_SPECS, ParamsError, parseParams, type TraceParams } from '../../../engine/params.ts';
import { DomainError } from '../../../errors.ts';
import type { AdmitUpload } from '../../api/admission.ts';
import { vectorizeResponse } from '../../api/responses.ts';
import { refuseDeclaredOversize, tooLarge, withUploadPace, type UploadPace } from '../../api/upload.ts';
import { pageErrorOf } from '../errors.ts';
import { paramFromText, refusalLog, type Pages } from '../pages.ts';
import { downloadLinks } from '../download-links.ts';

export interface TryDeps extends ConversionDeps {
  maxUploadBytes: number;
  uploadPace?: UploadPace;
  /** The API's upload admission: the same bound on uploads in flight, in all and per account. */
  admit?: AdmitUpload;
  /** Refusals by a limit are counted like the API's (vectorize_limit_refusals_total). */
  countRefusal?: (error: unknown) => void;
}

const PARAM_TEXT: Record<keyof TraceParams, { label: string; hint: string }> = {
  mode: { label: 'Recognition mode', hint: 'What kind of picture to treat it as: auto looks and decides; photo keeps shading; sketch treats it as ink on paper. Default auto.' },
  colorPrecision: { label: 'Color precision', hint: '1 to 8: how many colours to start from. Higher keeps finer shades. Default 6.' },
  layerDifference: { label: 'Layer difference', hint: '0 to 5: how different two neighbouring colours must be to stay apart. Higher gives fewer, flatter shapes. Default 1.' },
  cornerThreshold: { label: 'Corner threshold', hint: '0 to 180 degrees: how sharp a turn must be to stay a corner rather than a curve. Default 60.' },
  pathPrecision: { label: 'Path precision', hint: '1 to 10: digits kept in each coordinate. Lower gives smaller files. Default 4.' },
  filterSpeckle: { label: 'Filter speckle', hint: '0 to 20: specks smaller than this many pixels across are dropped; 0 lets the converter choose. Default 0.' },
  segmentLength: { label: 'Segment length', hint: '1 to 20: how closely curves follow the edge. Lower follows it tighter, with more points. Default 10.' },
  spliceThreshold: { label: 'Splice threshold', hint: '1 to 90 degrees: how much a curve may bend before it is split in two. Default 45.' },
  inputEnhance: { label: 'Input enhance', hint: 'Clean up noise in the picture first, for smaller files. Default off.' },
  curveMode: { label: 'Curve mode', hint: 'auto; polygon (straight lines only); spline (smooth curves); none (follow the pixels exactly). Default auto.' },
  stacking: { label: 'Stacking', hint: 'stacked: shapes lie on one another; cutouts: no two shapes overlap (for cutters). Default stacked.' },
  groupBy: { label: 'Group by', hint: 'none, or color: shapes of one colour kept together (one layer each). Default none.' },
  palette: { label: 'Palette', hint: 'Your own colours, #rrggbb separated by commas (1 to 256): every shape takes the nearest. Empty: none.' },
  maxColors: { label: 'Max colors', hint: '1 to 256: at most this many colours, chosen for the picture. Empty: no limit.' },
  centerline: { label: 'Centerline', hint: 'Draw lines as single strokes along their middle (for pen plotters). Default off.' },
  unit: { label: 'Unit', hint: 'px, mm or in: the size of the files on paper (pixels ÷ dpi). Default px.' },
  dpi: { label: 'DPI', hint: '72 to 2400 pixels per inch, to turn pixels into the unit. Default 96.' },
  minFeature: { label: 'Min feature', hint: 'Pieces and holes narrower than this (in the unit) are removed. Default 0.' },
  preset: {
    label: 'Preset',
    hint: 'vinyl, laser, plotter, screenprint or embroidery: sets the print and cut options left at their defaults here.',
  },
};

/**
 * "What is the picture?": the first choice on the form, in plain words. Each sets parameters
 * that exist today, only where the form leaves them at their defaults (so Advanced wins); the
 * print and cut choices are the engine's presets. Why these values: docs/decisions.md.
 */
export const PICTURES = {
  logo: { label: 'Logo or icon', hint: 'Flat colours and crisp edges, such as a logo, an icon or a flag.', params: { mode: 'auto', filterSpeckle: 4, layerDifference: 2 } },
  illustration: { label: 'Illustration', hint: 'A drawing or cartoon in colour, with some shading.', params: { mode: 'auto', colorPrecision: 7, curveMode: 'spline' } },
  photo: { label: 'Photo', hint: 'A photograph: many colours and soft shading.', params: { mode: 'photo' } },
  ink: { label: 'Ink drawing or scan', hint: 'Dark lines on paper: a sketch, handwriting, an engraving.', params: { mode: 'sketch' } },
  pixel: { label: 'Pixel art', hint: 'Made pixel by pixel: every square is kept exactly.', params: { curveMode: 'none' } },
  vinyl: { label: 'Vinyl cutting', hint: 'Stickers and signs: up to 8 colours, no overlaps, sizes in mm.', params: { preset: 'vinyl' } },
  laser: { label: 'Laser cutting', hint: 'Up to 4 colours as cut lines, no overlaps, sizes in mm.', params: { preset: 'laser' } },
  plotter: { label: 'Pen plotter', hint: 'Lines drawn as single pen strokes, sizes in mm.', params: { preset: 'plotter' } },
  screenprint: { label: 'Screen printing', hint: 'Up to 4 flat ink colours, one layer per screen.', params: { preset: 'screenprint' } },
  embroidery: { label: 'Embroidery', hint: 'Up to 6 thread colours, no overlaps, no tiny pieces.', params: { preset: 'embroidery' } },
} satisfies Record<string, { label: string; hint: string; params: Partial<Record<keyof TraceParams, string | number | boolean>> }>;
type Picture = keyof typeof PICTURES;
const isPicture = (value: string | undefined): value is Picture => value !== undefined && Object.hasOwn(PICTURES, value);

/** The home page's samples (public/samples/, see SOURCES.md there): name → file and picture kind. */
export const SAMPLES = {
  shapes: { file: 'shapes.png', type: 'image/png', picture: 'logo', label: 'Flat shapes' },
  elephant: { file: 'elephant.png', type: 'image/png', picture: 'illustration', label: 'Elephant' },
  rose: { file: 'rose.webp', type: 'image/webp', picture: 'photo', label: 'Yellow rose' },
  handwriting: { file: 'handwriting.png', type: 'image/png', picture: 'ink', label: 'Handwriting' },
} satisfies Record<string, { file: string; type: string; picture: Picture; label: string }>;
type Sample = keyof typeof SAMPLES;
const isSample = (value: unknown): value is Sample => typeof value === 'string' && Object.hasOwn(SAMPLES, value);
const SAMPLES_DIR = fileURLToPath(new URL('../public/samples/', import.meta.url));

function pictureRows(chosen: string | undefined) {
  const value = isPicture(chosen) ? chosen : '';
  return [
    { value: '', label: 'Let the converter decide', hint: 'It looks at the picture and picks the best way.', checked: value === '' },
    ...Object.entries(PICTURES).map(([name, p]) => ({ value: name, label: p.label, hint: p.hint, checked: value === name })),
  ];
}

const PARAM_NAMES = Object.keys(PARAM_SPECS) as (keyof TraceParams)[];
const FORM_FIELDS = new Set<string>(['_csrf', 'picture', 'sample', ...PARAM_NAMES]);
const UNCONFIRMED =
  'No credits yet: open the link we mailed you to confirm your email, and your free credits are added (your dashboard sends the link again).';
/** The preview of the original is put in the no-script answer only when it is this small. */
const INLINE_ORIGINAL_MAX_BYTES = 2 * 1024 * 1024;

interface TryForm {
  image?: { bytes: Buffer; filename: string };
  fields: Record<string, string>;
  /** The file was over the limit (and dropped). */
  oversized?: boolean;
}

async function readTryForm(request: FastifyRequest, maxBytes: number): Promise<TryForm> {
  if (!request.isMultipart()) throw new DomainError('invalid_input', 'image: send the form with its file (multipart/form-data)');
  const form: TryForm = { fields: {} };
  // An oversized file is cut at the limit and the rest of the body read and dropped, so the
  // browser, still sending, gets the page that says so rather than a reset connection.
  const options = { throwFileSizeLimit: false, limits: { fileSize: maxBytes, files: 1, fields: 24, parts: 28, fieldSize: 4096, headerPairs: 50 } };
  // @fastify/multipart reads throwFileSizeLimit per call; its types list it only for the plugin.
  const parts = request.parts(options as Parameters<FastifyRequest['parts']>[0]);
  let oversized = false;
  for await (const part of parts) {
    if (part.type === 'file') {
      if (part.fieldname !== 'image') throw new DomainError('invalid_input', `unknown file field ${JSON.stringify(part.fieldname)}`);
      const bytes = await part.toBuffer();
      if (part.file.truncated) oversized = true;
      else form.image = { bytes, filename: part.filename };
    } else {
      if (!FORM_FIELDS.has(part.fieldname)) throw new DomainError('invalid_input', `unknown field ${JSON.stringify(part.fieldname)}`);
      form.fields[part.fieldname] = typeof part.value === 'string' ? part.value : String(part.value);
    }
  }
  return { ...form, oversized };
}

/**
 * The form's fields as a `params` object, checked by the same validation as the API's. The form
 * sends every field; one left at its default is left out, so that a preset can set it.
 */
function paramsFromForm(fields: Record<string, string>): TraceParams {
  // The picture's values first: a field changed from its default under Advanced wins.
  const picture = fields.picture;
  const params: Record<string, unknown> = isPicture(picture) ? { ...PICTURES[picture].params } : {};
  for (const name of PARAM_NAMES) {
    const spec = PARAM_SPECS[name];
    const raw = (fields[name] ?? '').trim();
    let value: unknown;
    if (spec.kind === 'boolean') value = raw === 'true' || raw === 'on';
    else if (raw === '') continue;
    else value = paramFromText(spec, raw);
    if ('default' in spec && value === spec.default) continue;
    params[name] = value;
  }
  try {
    return parseParams(JSON.stringify(params));
  } catch (error) {
    if (!(error instanceof ParamsError)) throw error;
    // `params.colorPrecision: must be …` → `Color precision: must be …`
    // `params.palette[1]: must be …` → `Palette, colour 2: must be …`
    const message = error.message.replace(/^params\.(\w+)(?:\[(\d+)\])?/, (_m, name: string, index?: string) => {
      const label = PARAM_TEXT[name as keyof TraceParams]?.label ?? name;
      return index === undefined ? label : `${label}, colour ${Number(index) + 1}`;
    });
    throw new DomainError('invalid_input', message);
  }
}

function paramRows(values: Record<string, string | boolean | number>) {
  return PARAM_NAMES.map((name) => {
    const spec = PARAM_SPECS[name];
    const value = values[name] ?? ('default' in spec ? spec.default : '') ?? '';
    return { name, ...PARAM_TEXT[name], ...spec, value: spec.kind === 'boolean' ? value === true || value === 'true' || value === 'on' : value };
  });
}

export function tryRoutes(app: FastifyInstance, pages: Pages, deps: TryDeps): void {
  const { render, requireSignedIn } = pages;

  function tryPage(request: FastifyRequest, reply: FastifyReply, data: Record<string, unknown>, status = 200) {
    const account = request.signedIn;
    return render(
      request,
      reply,
      'try',
      {
        title: 'Converter',
        script: 'try.js',
        account,
        maxBytes: deps.maxUploadBytes,
        params: paramRows({}),
        pictures: pictureRows(undefined),
        ...data,
      },
      { status },
    );
  }

  app.get<{ Querystring: { sample?: unknown } }>('/try', async (request, reply) => {
    const sample = isSample(request.query.sample) ? request.query.sample : undefined;
    // A sample chosen on the home page comes back here after logging in.
    if (!request.signedIn && sample) return reply.redirect(`/login?next=${encodeURIComponent(`/try?sample=${sample}`)}`, 303);
    if (!requireSignedIn(request, reply)) return reply;
    if (!sample) return tryPage(request, reply, {});
    const { picture, label, file } = SAMPLES[sample];
    return tryPage(request, reply, { sample: { name: sample, label, url: `/static/samples/${file}` }, pictures: pictureRows(picture) });
  });

  app.post('/try', async (request, reply) => {
    const wantsJson = (request.headers.accept ?? '').includes('application/json');
    const account = request.signedIn;
    if (!account) {
      if (wantsJson) return reply.code(401).send({ error: 'Your session has ended. Log in again to convert images.' });
      return reply.redirect('/login?next=%2Ftry', 303);
    }
    let form: TryForm = { fields: {} };
    try {
      const headerToken = request.headers['x-csrf-token'];
      // The script sends the token as a header, checked before anything else.
      if (headerToken !== undefined) pages.deps.sessions.verifyCsrf(request, headerToken);
      // The API's order exactly: account status, plan limits and the credit (in vectorize)
      // before an upload slot is taken or a byte of the body is read, so an account that may
      // not convert (banned, no credits, at its limits) holds nothing while it trickles.
      const result = await vectorize(deps, account, async () => {
        refuseDeclaredOversize(request, deps.maxUploadBytes);
        await deps.admit?.(account.id, reply);
        form = await withUploadPace(request, deps.uploadPace, () => readTryForm(request, deps.maxUploadBytes));
        if (form.oversized) throw tooLarge(deps.maxUploadBytes);
        // The form without the script carries its token in the body: checked before converting.
        if (headerToken === undefined) pages.deps.sessions.verifyCsrf(request, form.fields._csrf);
        const params = paramsFromForm(form.fields);
        let image = form.image;
        // The home page's sample, when no file was chosen (the form without the script).
        if ((!image || image.bytes.length === 0) && isSample(form.fields.sample)) {
          const { file } = SAMPLES[form.fields.sample];
          image = form.image = { bytes: await readFile(join(SAMPLES_DIR, file)), filename: file };
        }
        if (!image || (image.bytes.length === 0 && image.filename === '')) throw new DomainError('invalid_input', 'image: choose an image file to convert');
        return { bytes: image.bytes, filename: image.filename, params };
      }, undefined, { keepSource: true });
      if (wantsJson) return reply.send(vectorizeResponse(result));
      const image = form.image as NonNullable<TryForm['image']>;
      // The preview's type comes from the bytes (the conversion checked them), never from the
      // part's Content-Type, which the client chose.
      const mediaType = imageMediaType(image.bytes);
      return tryPage(request, reply, {
        result: {
          ...vectorizeResponse(result),
          svgDataUrl: `data:image/svg+xml;base64,${Buffer.from(result.svg).toString('base64')}`,
          originalDataUrl:
            mediaType && image.bytes.length <= INLINE_ORIGINAL_MAX_BYTES ? `data:${mediaType};base64,${image.bytes.toString('base64')}` : undefined,
          downloads: downloadLinks(result.id, image.filename),
        },
        account: { ...account, credits: result.creditsRemaining ?? account.credits },
        params: paramRows(form.fields),
        pictures: pictureRows(form.fields.picture),
      });
    } catch (error) {
      const known = pageErrorOf(error);
      if (!known) throw error;
      // No credits yet because the email is not confirmed: say what brings them.
      const refusal = known.status === 402 && !account.emailVerified ? { ...known, message: UNCONFIRMED } : known;
      deps.countRefusal?.(error);
      request.log.info(refusalLog(refusal.status, error), 'conversion refused');
      if (refusal.retryAfterSeconds !== undefined) void reply.header('retry-after', String(refusal.retryAfterSeconds));
      if (wantsJson) return reply.code(refusal.status).send({ error: refusal.message });
      return tryPage(request, reply, { error: refusal.message, errorLink: refusal.link, params: paramRows(form.fields), pictures: pictureRows(form.fields.picture), paramsOpen: true }, refusal.status);
    }
  });
}
