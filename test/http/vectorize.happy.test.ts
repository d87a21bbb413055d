import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ledgerSum } from '../../src/accounts/credits.ts';
import { findAccountByEmail } from '../../src/accounts/accounts.ts';
import { corpusFile, getResult, postVectorize } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { dialects } from '../helpers/stores.ts';
import { countAnchors, viewBoxOf } from '../helpers/svg.ts';

const ID = /^vec_[a-z0-9]+_[a-z0-9]{6}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const IMAGES = [
  { file: 'logo/flat_shapes_transparency_300.png', width: 300, height: 300 },
  { file: 'illustration/vtracer_gum_tree_vector.jpg', width: 1400, height: 775 },
  { file: 'clipart/baby_tux_fizyplankton.webp', width: 386, height: 395 },
];

for (const dialect of await dialects()) {
  describe(`vectorize happy path (${dialect.dialect})`, { skip: dialect.skip }, () => {
    let service: TestService;
    let freeKey: string;
    let proKey: string;

    before(async () => {
      service = await startTestService(await dialect.create());
      freeKey = await service.accountWithKey('free@example.com');
      proKey = await service.accountWithKey('pro@example.com', { plan: 'pro' });
    });
    after(async () => {
      await service.close();
      await service.database.drop();
    });

    for (const image of IMAGES) {
      it(`converts ${image.file} with every field of the contract`, async () => {
        const bytes = corpusFile(image.file);
        const res = await postVectorize(service.url, proKey, { image: bytes, filename: image.file.split('/')[1] });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const body = res.body;
        assert.deepEqual(Object.keys(body).sort(), ['credits_remaining', 'fidelity', 'height', 'id', 'node_count', 'processing_time_ms', 'svg', 'width']);
        assert.match(String(body.id), ID);
        assert.equal(body.width, image.width);
        assert.equal(body.height, image.height);
        const svg = String(body.svg);
        assert.match(svg, /^(<\?xml[^>]*>\s*)?<svg\b/);
        assert.match(svg, /<\/svg>\s*$/);
        assert.equal(viewBoxOf(svg), `0 0 ${image.width} ${image.height}`);
        assert.doesNotMatch(svg, /<script|\son[a-z]+=|xlink:href|href=|<!--/i);
        assert.ok(Number.isInteger(body.node_count) && (body.node_count as number) > 0);
        assert.equal(body.node_count, countAnchors(svg));
        assert.ok(Number.isInteger(body.processing_time_ms) && (body.processing_time_ms as number) >= 0);
        assert.equal(body.credits_remaining, null);
        // The engine's own score: a number 0–1 with three decimals, high for these faithful traces.
        const fidelity = body.fidelity as number;
        assert.equal(typeof fidelity, 'number');
        assert.ok(fidelity > 0.8 && fidelity <= 1, `fidelity ${fidelity}`);
        assert.equal(Math.round(fidelity * 1000) / 1000, fidelity);

        const meta = await getResult(service.url, proKey, String(body.id));
        assert.equal(meta.status, 200);
        assert.equal(meta.body.id, body.id);
        assert.equal(meta.body.original_name, image.file.split('/')[1]);
        assert.equal(meta.body.file_size, bytes.length);
        assert.match(String(meta.body.created_at), ISO_MS);
        assert.match(String(meta.body.note), /only.*vectorize/i);
        assert.equal(meta.body.width, image.width);
        assert.equal(meta.body.node_count, body.node_count);
        assert.equal(meta.body.fidelity, body.fidelity);
        assert.equal(meta.body.svg, undefined);
        assert.equal((meta.body.params as Record<string, unknown>).colorPrecision, 6);
      });
    }

    it('debits one credit per conversion on the free plan and reports the balance', async () => {
      const image = corpusFile('edge/tiny_tango_address_book_32.png');
      const first = await postVectorize(service.url, freeKey, { image });
      assert.equal(first.status, 200);
      assert.equal(first.body.credits_remaining, 9);
      const second = await postVectorize(service.url, freeKey, { image });
      assert.equal(second.body.credits_remaining, 8);
      const account = await findAccountByEmail(service.store.db, 'free@example.com');
      assert.equal(account?.credits, 8);
      assert.equal(await ledgerSum(service.store.db, account!.id), 8);
      assert.notEqual(first.body.id, second.body.id);
    });

    it('keeps the filename exactly as sent, any Unicode included', async () => {
      const name = 'ünïcødé 图像 😀.png';
      const res = await postVectorize(service.url, proKey, { image: corpusFile('edge/tiny_tango_address_book_32.png'), filename: name });
      assert.equal(res.status, 200);
      const meta = await getResult(service.url, proKey, String(res.body.id));
      assert.equal(meta.body.original_name, name);
    });

    it('applies params and records the effective ones', async () => {
      const res = await postVectorize(service.url, proKey, {
        image: corpusFile('logo/flat_shapes_transparency_300.png'),
        params: { colorPrecision: 3, curveMode: 'polygon', mode: 'photo' },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const meta = await getResult(service.url, proKey, String(res.body.id));
      const params = meta.body.params as Record<string, unknown>;
      assert.equal(params.colorPrecision, 3);
      assert.equal(params.curveMode, 'polygon');
      assert.equal(params.layerDifference, 1);
    });
  });
}
