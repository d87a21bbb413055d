// The params matrix: every member at both ends of its range (accepted), just outside it and
// with a wrong type (refused with 400 naming the member and what it accepts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PARAM_SPECS } from '../../src/engine/params.ts';
import { corpusFile, getResult, postVectorize } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { createSqliteDatabase } from '../helpers/stores.ts';

const IMAGE = corpusFile('edge/wide_grafxkid_speech_emotes_144x16.png');

interface Case {
  member: string;
  value: unknown;
  ok: boolean;
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const [member, spec] of Object.entries(PARAM_SPECS)) {
    switch (spec.kind) {
      case 'integer':
        out.push(
          { member, value: spec.min, ok: true },
          { member, value: spec.max, ok: true },
          { member, value: spec.min - 1, ok: false },
          { member, value: spec.max + 1, ok: false },
          { member, value: String(spec.default), ok: false },
          { member, value: spec.min + 0.5, ok: false },
          { member, value: null, ok: false },
          { member, value: true, ok: false },
        );
        break;
      case 'boolean':
        out.push(
          { member, value: true, ok: true },
          { member, value: false, ok: true },
          { member, value: 'yes', ok: false },
          { member, value: 1, ok: false },
          { member, value: 'true', ok: false },
        );
        break;
      case 'enum':
        for (const value of spec.values) out.push({ member, value, ok: true });
        out.push(
          { member, value: 'other', ok: false },
          { member, value: spec.values[0]?.toUpperCase(), ok: false },
          { member, value: 1, ok: false },
          { member, value: [], ok: false },
        );
        break;
      case 'number':
        out.push(
          { member, value: spec.min, ok: true },
          { member, value: 2.5, ok: true },
          { member, value: spec.min - 0.01, ok: false },
          { member, value: String(spec.default), ok: false },
          { member, value: null, ok: false },
          { member, value: true, ok: false },
          { member, value: [1], ok: false },
        );
        break;
      case 'colours':
        out.push(
          { member, value: ['#000000'], ok: true },
          { member, value: ['#e4002b', '#ffffff', '#0a0a0a'], ok: true },
          { member, value: Array.from({ length: spec.maxItems }, (_, i) => `#${i.toString(16).padStart(6, '0')}`), ok: true },
          { member, value: [], ok: false },
          { member, value: Array.from({ length: spec.maxItems + 1 }, (_, i) => `#${i.toString(16).padStart(6, '0')}`), ok: false },
          { member, value: '#000000', ok: false },
          { member, value: ['red'], ok: false },
          { member, value: ['#12345'], ok: false },
          { member, value: ['#1234567'], ok: false },
          { member, value: ['000000'], ok: false },
          { member, value: [0], ok: false },
          { member, value: null, ok: false },
        );
        break;
    }
  }
  return out;
}

describe('params matrix', () => {
  let service: TestService;
  let key: string;
  before(async () => {
    service = await startTestService(createSqliteDatabase());
    key = await service.accountWithKey('params@example.com', { plan: 'lifetime' });
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  for (const { member, value, ok } of cases()) {
    it(`${member} = ${JSON.stringify(value)} is ${ok ? 'accepted' : 'refused'}`, async () => {
      const res = await postVectorize(service.url, key, { image: IMAGE, params: { [member]: value } });
      if (ok) {
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const meta = await getResult(service.url, key, String(res.body.id));
        assert.deepEqual((meta.body.params as Record<string, unknown>)[member], value);
      } else {
        assert.equal(res.status, 400, JSON.stringify(res.body));
        const message = String(res.body.error);
        assert.match(message, new RegExp(`params\\.${member}`));
        const spec = PARAM_SPECS[member as keyof typeof PARAM_SPECS];
        if (spec.kind === 'integer') assert.match(message, new RegExp(`${spec.min} to ${spec.max}`));
        if (spec.kind === 'enum') for (const allowed of spec.values) assert.ok(message.includes(`"${allowed}"`));
        if (spec.kind === 'boolean') assert.match(message, /boolean/);
        if (spec.kind === 'number') assert.match(message, new RegExp(`number of ${spec.min} or more`));
        if (spec.kind === 'colours') assert.match(message, /#rrggbb/);
      }
    });
  }

  it('applies defaults to omitted members and accepts all members together', async () => {
    // Members without a default (palette, maxColors, preset) are absent until given.
    const all = Object.fromEntries(Object.entries(PARAM_SPECS).flatMap(([name, spec]) => ('default' in spec && spec.default !== undefined ? [[name, spec.default]] : [])));
    const res = await postVectorize(service.url, key, { image: IMAGE, params: all });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const empty = await postVectorize(service.url, key, { image: IMAGE, params: '' });
    assert.equal(empty.status, 200, JSON.stringify(empty.body));
    const meta = await getResult(service.url, key, String(empty.body.id));
    assert.deepEqual(meta.body.params, all);
  });
});
