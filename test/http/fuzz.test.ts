// Seeded fuzzing of the public API over real HTTP: mutated corpus images, truncated and
// wrong-format files, broken multipart bodies, random params and fields, random lookups.
// The invariants: no 5xx but deliberate 503s (with Retry-After), every error in the contract's
// shape, the service alive afterwards, and the credit ledger balanced.
// FUZZ_SEED and FUZZ_REQUESTS replay or widen a run.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { findAccountByEmail } from '../../src/accounts/accounts.ts';
import { ledgerSum } from '../../src/accounts/credits.ts';
import { PARAM_SPECS } from '../../src/engine/params.ts';
import { corpusFile, vectorizeForm } from '../helpers/http.ts';
import { liftFreeLimits, startTestService, type TestService } from '../helpers/service.ts';
import { createSqliteDatabase } from '../helpers/stores.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2000);
const CONCURRENCY = 8;
/**
 * The run stops here whatever is left, so a slow machine fails with the statuses so far instead
 * of at the runner's timeout (scripts/run-tests.ts). With other work keeping both cores busy
 * (load average 12), 1425 requests took 110 s.
 */
const TIME_BUDGET_MS = 300_000;
const CREDITS = 1_000_000;
const EMAIL = 'fuzz@example.com';

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
function prng(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!;
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => int(0, 255)));
  return { next, int, pick, bytes, chance: (p: number) => next() < p };
}
type Rng = ReturnType<typeof prng>;

interface FuzzRequest {
  kind: string;
  path: string;
  init: RequestInit;
}

interface Seeds {
  images: Buffer[];
  tiny: Buffer;
}

const WRONG_FORMATS: Buffer[] = [
  Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64'), // GIF
  Buffer.concat([Buffer.from('BM'), Buffer.alloc(60, 1)]), // BMP
  Buffer.from([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0, 0, 0]), // TIFF
  Buffer.from('%PDF-1.7\n1 0 obj<<>>endobj\n'),
  Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
  Buffer.from('<!doctype html><p>hello'),
  Buffer.from([0x00, 0x00, 0x01, 0x00]), // ICO
  Buffer.from('RIFF\x10\x00\x00\x00WAVEfmt '), // RIFF but not WebP
  Buffer.from([0x89, 0x50, 0x4e, 0x47]), // the first half of a PNG signature
  Buffer.from([0xff, 0xd8]), // a JPEG start marker alone
];

const FIELD_NAMES = ['image', 'params', 'Image', 'file', 'params[]', '', 'x'.repeat(300), 'émoji🎨', 'image\u0000', 'colorPrecision'];

function mutate(rng: Rng, source: Buffer): Buffer {
  let out = Buffer.from(source);
  for (let op = rng.int(1, 3); op > 0; op--) {
    const at = rng.int(0, Math.max(0, out.length - 1));
    switch (rng.int(0, 5)) {
      case 0: // flip a few bytes
        for (let i = rng.int(1, 16); i > 0; i--) {
          const j = rng.int(0, out.length - 1);
          out[j] = out[j]! ^ (1 << rng.int(0, 7));
        }
        break;
      case 1: // overwrite a run with random bytes
        rng.bytes(rng.int(1, 64)).copy(out, at);
        break;
      case 2: // cut a run out
        out = Buffer.concat([out.subarray(0, at), out.subarray(Math.min(out.length, at + rng.int(1, 256)))]);
        break;
      case 3: // insert random bytes
        out = Buffer.concat([out.subarray(0, at), rng.bytes(rng.int(1, 64)), out.subarray(at)]);
        break;
      case 4: // duplicate a run
        out = Buffer.concat([out.subarray(0, at), out.subarray(at, at + rng.int(1, 512)), out.subarray(at)]);
        break;
      default: // truncate
        out = out.subarray(0, at);
    }
  }
  return out;
}

function randomValue(rng: Rng): unknown {
  return rng.pick<() => unknown>([
    () => rng.int(-1000, 1000),
    () => rng.next() * 100,
    () => String(rng.int(0, 10)),
    () => rng.chance(0.5),
    () => null,
    () => [],
    () => ({}),
    () => 'auto',
    () => rng.pick(['photo', 'sketch', 'polygon', 'spline', 'none', 'PHOTO', '']),
    () => 1e308,
    () => -0,
  ])();
}

function randomParams(rng: Rng): string {
  const names = Object.keys(PARAM_SPECS);
  switch (rng.int(0, 6)) {
    case 0: // valid values for a few members
    case 1: {
      const params: Record<string, unknown> = {};
      for (let i = rng.int(1, 4); i > 0; i--) {
        const name = rng.pick(names) as keyof typeof PARAM_SPECS;
        const spec = PARAM_SPECS[name];
        params[name] =
          spec.kind === 'integer'
            ? rng.int(spec.min, spec.max)
            : spec.kind === 'boolean'
              ? rng.chance(0.5)
              : spec.kind === 'number'
                ? rng.int(0, 8) / 4
                : spec.kind === 'colours'
                  ? rng.pick([['#000000', '#ffffff'], ['#e4002b'], ['#112233', '#445566', '#778899']])
                  : rng.pick(spec.values);
      }
      return JSON.stringify(params);
    }
    case 2: {
      // Random values, sometimes out of range or of the wrong type.
      const params: Record<string, unknown> = {};
      for (let i = rng.int(1, 5); i > 0; i--) params[rng.pick([...names, 'colour', '__proto__', 'constructor', ''])] = randomValue(rng);
      return JSON.stringify(params);
    }
    case 3:
      return rng.pick(['{', '[]', '"auto"', 'null', '1', '{"mode":', 'NaN', '{"a":1}{"b":2}', '\u0000', '{"mode":"auto",}']);
    case 4:
      return `{"nested":${'['.repeat(rng.int(1, 2000))}`;
    case 5:
      return JSON.stringify({ mode: 'x'.repeat(rng.int(1, 70_000)) });
    default:
      return rng.bytes(rng.int(0, 64)).toString('latin1');
  }
}

function brokenMultipart(rng: Rng, seeds: Seeds): { body: Buffer; contentType: string } {
  const boundary = `b${rng.int(0, 1e9)}`;
  const part = (name: string, data: Buffer, filename = 'a.png') =>
    Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\n\r\n`), data, Buffer.from('\r\n')]);
  const closing = Buffer.from(`--${boundary}--\r\n`);
  const whole = Buffer.concat([part('image', seeds.tiny), closing]);
  const type = `multipart/form-data; boundary=${boundary}`;
  switch (rng.int(0, 9)) {
    case 0:
      return { body: whole.subarray(0, rng.int(0, whole.length - 1)), contentType: type }; // cut anywhere
    case 1:
      return { body: Buffer.concat([part('image', seeds.tiny)]), contentType: type }; // no closing boundary
    case 2:
      return { body: whole, contentType: 'multipart/form-data; boundary=other' }; // wrong boundary
    case 3:
      return { body: whole, contentType: 'multipart/form-data' }; // no boundary at all
    case 4:
      return { body: rng.bytes(rng.int(0, 2048)), contentType: type }; // noise
    case 5:
      return { body: Buffer.from(`--${boundary}\r\nContent-Disposition: form-data\r\n\r\nabc\r\n--${boundary}--\r\n`), contentType: type }; // no name
    case 6:
      return { body: Buffer.from(`--${boundary}\r\n${'X-Junk: y\r\n'.repeat(rng.int(1, 200))}\r\n\r\n--${boundary}--\r\n`), contentType: type };
    case 7:
      return { body: Buffer.from('{"image":"iVBORw0KGgo="}'), contentType: rng.pick(['application/json', 'text/plain', 'application/x-www-form-urlencoded']) };
    case 8:
      return { body: mutate(rng, whole), contentType: type }; // mutated framing and payload
    default:
      return { body: Buffer.concat([part('image', seeds.tiny), part('image', seeds.tiny), closing]), contentType: type }; // two images
  }
}

function form(image: Buffer | undefined, filename: string, params?: string, extra: [string, string | Buffer][] = []): FormData {
  const body = vectorizeForm({ image, filename, params });
  for (const [name, value] of extra) {
    if (typeof value === 'string') body.append(name, value);
    else body.append(name, new Blob([new Uint8Array(value)]), 'extra.bin');
  }
  return body;
}

function nextRequest(rng: Rng, seeds: Seeds, key: string): FuzzRequest {
  const auth = { authorization: `Bearer ${key}` };
  const post = (kind: string, body: FormData | Buffer, headers: Record<string, string> = {}): FuzzRequest => ({
    kind,
    path: '/api/v1/vectorize',
    init: { method: 'POST', headers: { ...auth, ...headers }, body: body instanceof FormData ? body : new Uint8Array(body) },
  });
  const roll = rng.next();
  if (roll < 0.4) {
    const image = mutate(rng, rng.pick(seeds.images));
    return post('mutated image', form(image, rng.pick(['a.png', 'b.jpg', 'c.webp', 'noext', '../../etc/passwd', 'ü.png']), rng.chance(0.3) ? randomParams(rng) : undefined));
  }
  if (roll < 0.5) {
    const source = rng.pick(seeds.images);
    return post('truncated image', form(source.subarray(0, rng.int(0, Math.min(64, source.length - 1)) * rng.int(1, 4)), 't.png'));
  }
  if (roll < 0.58) return post('wrong format', form(rng.pick(WRONG_FORMATS), rng.pick(['x.png', 'x.jpg', 'x.webp'])));
  if (roll < 0.72) {
    const { body, contentType } = brokenMultipart(rng, seeds);
    return post('broken multipart', body, { 'content-type': contentType });
  }
  if (roll < 0.85) return post('random params', form(seeds.tiny, 'p.png', randomParams(rng)));
  if (roll < 0.91) {
    const extra: [string, string | Buffer][] = [];
    for (let i = rng.int(1, 3); i > 0; i--) extra.push([rng.pick(FIELD_NAMES), rng.chance(0.5) ? seeds.tiny : randomParams(rng)]);
    return post('extra fields', form(rng.chance(0.7) ? seeds.tiny : undefined, 'e.png', undefined, extra));
  }
  if (roll < 0.96) {
    const id = rng.pick([`vec_${rng.int(0, 1e9).toString(36)}_${rng.bytes(3).toString('hex')}`, '%00', '..%2F..%2Fadmin', 'x'.repeat(rng.int(1, 3000)), encodeURIComponent('日本')]);
    return { kind: 'result lookup', path: `/api/v1/result/${id}`, init: { headers: auth } };
  }
  const headers = rng.pick<Record<string, string>>([{}, { authorization: 'Bearer' }, { authorization: `Bearer ${key}x` }, { authorization: `Basic ${key}` }, { authorization: 'Bearer \u00ff' }]);
  return {
    kind: 'auth and methods',
    path: rng.pick(['/api/v1/vectorize', '/api/v1/result/vec_a_b', '/api/v2/vectorize', '/']),
    init: { method: rng.pick(['GET', 'POST', 'PUT', 'DELETE', 'PATCH']), headers },
  };
}

describe(`fuzz: ${REQUESTS} seeded requests (seed ${SEED})`, () => {
  let service: TestService;
  let key: string;
  let seeds: Seeds;

  before(async () => {
    // Every client uses one account: its share of the upload slots (half by default) must
    // hold them all, or capacity refusals (503) would crowd out the answers under test.
    service = await startTestService(createSqliteDatabase(), { env: { MAX_CONCURRENT_UPLOADS: String(2 * CONCURRENCY), MAX_UPLOADS_PER_ACCOUNT: String(CONCURRENCY) } });
    await liftFreeLimits(service);
    key = await service.accountWithKey(EMAIL, { credits: CREDITS });
    // Small images only: a mutated one that still decodes converts in milliseconds.
    const pngs = ['edge/tiny_tango_address_book_32.png', 'edge/wide_grafxkid_speech_emotes_144x16.png', 'pixelart/grafxkid_grassland_terrain.png', 'edge/sixteen_bit_rgb_flag_nl.png'].map(corpusFile);
    const photo = sharp(corpusFile('illustration/vtracer_gum_tree_vector.jpg')).resize(48);
    const jpeg = await photo.clone().jpeg({ quality: 70 }).toBuffer();
    const webp = await sharp(corpusFile('clipart/baby_tux_fizyplankton.webp')).resize(40).webp().toBuffer();
    seeds = { images: [...pngs, jpeg, webp], tiny: pngs[0]! };
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  it('answers every request in the contract’s shape, without a 5xx other than 503', async () => {
    const rng = prng(SEED);
    // Draw every request up front so the sequence depends on the seed alone, not on timing.
    const requests = Array.from({ length: REQUESTS }, () => nextRequest(rng, seeds, key));
    const deadline = Date.now() + TIME_BUDGET_MS;
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    let converted = 0;
    let done = 0;
    let next = 0;

    async function client(): Promise<void> {
      while (next < requests.length && Date.now() < deadline) {
        const index = next++;
        const { kind, path, init } = requests[index]!;
        const res = await fetch(`${service.url}${path}`, init);
        const text = await res.text();
        done++;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const where = `#${index} ${kind} → ${res.status}`;
        if (res.status >= 500 && res.status !== 503) failures.push(`${where}: ${text.slice(0, 200)}`);
        if (res.status === 503 && !res.headers.get('retry-after')) failures.push(`${where} without Retry-After`);
        // `/` is the landing page since the web application (SPEC "Web application"): HTML, any method other than GET a JSON 404.
        if (path === '/' && (res.headers.get('content-type') ?? '').startsWith('text/html')) {
          if (res.status !== 200 || !text.startsWith('<!doctype html>') || /\bat .+:\d+:\d+\)/.test(text)) failures.push(`${where}: page ${text.slice(0, 100)}`);
          continue;
        }
        let body: Record<string, unknown>;
        try {
          body = JSON.parse(text) as Record<string, unknown>;
        } catch {
          failures.push(`${where}: not JSON: ${text.slice(0, 100)}`);
          continue;
        }
        if (res.status >= 400 && (typeof body.error !== 'string' || body.error === '' || typeof body.request_id !== 'string')) {
          failures.push(`${where}: error body ${text.slice(0, 200)}`);
        }
        if (res.status === 200 && path === '/api/v1/vectorize') {
          converted++;
          if (!/^(<\?xml[^>]*>\s*)?<svg\b/.test(String(body.svg))) failures.push(`${where}: not an SVG`);
        }
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, client));

    const summary = JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])));
    assert.deepEqual(failures.slice(0, 20), [], `statuses ${summary}`);
    assert.equal(done, REQUESTS, `only ${done} requests within ${TIME_BUDGET_MS} ms (statuses ${summary})`);
    assert.ok((statuses.get(400) ?? 0) > REQUESTS / 3, `most fuzzed requests are refused with 400: ${summary}`);
    assert.ok(converted > 0, 'some mutated or fuzzed requests still converted');

    // Alive and ready after the storm.
    const ready = await fetch(`${service.url}/readyz`);
    assert.equal(ready.status, 200, await ready.text());

    // Every successful conversion spent exactly one credit and every failure gave its back.
    const account = await findAccountByEmail(service.store.db, EMAIL);
    assert.equal(account?.credits, CREDITS - converted);
    assert.equal(await ledgerSum(service.store.db, account!.id), account?.credits);
    const held = await service.store.db.selectFrom('reservations').select('id').where('state', '=', 'held').execute();
    assert.deepEqual(held, []);
  });
});
