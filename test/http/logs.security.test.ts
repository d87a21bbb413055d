import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { scrubSecrets } from '../../src/service.ts';
import { corpusFile, postVectorize, request } from '../helpers/http.ts';
import { leakingLines, startTestService, type TestService } from '../helpers/service.ts';
import { createSqliteDatabase } from '../helpers/stores.ts';

const PNG = corpusFile('edge/tiny_tango_address_book_32.png');

describe('logs never hold a key or a password', () => {
  let service: TestService;
  let key: string;
  before(async () => {
    service = await startTestService(createSqliteDatabase());
    key = await service.accountWithKey('logs@example.com', { plan: 'lifetime' });
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  it('writes structured JSON lines with the request id, and no key wherever a client puts one', async () => {
    const ok = await postVectorize(service.url, key, { image: PNG });
    assert.equal(ok.status, 200);
    // Keys where they do not belong: the URL, a form field, params, the filename, the request id.
    await request(service.url, `/api/v1/result/vec_abc_def?api_key=${key}`, { headers: { authorization: `Bearer ${key}` } });
    await request(service.url, `/${key}`);
    await postVectorize(service.url, key, { image: PNG, extraFields: { [key]: key } });
    await postVectorize(service.url, key, { image: PNG, params: { [key]: 1 } });
    await postVectorize(service.url, key, { image: PNG, filename: `${key}.png` });
    await request(service.url, '/api/v1/result/vec_abc_def', { headers: { authorization: `Bearer ${key}`, 'x-request-id': key } });
    await request(service.url, '/api/v1/result/vec_abc_def', { headers: { authorization: `Basic ${Buffer.from(`admin:${key}`).toString('base64')}` } });
    await request(service.url, '/api/v1/result/vec_abc_def', { headers: { authorization: `Bearer ${key.slice(0, -1)}x` } });

    const lines = service.logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const incoming = lines.filter((line) => line.msg === 'incoming request');
    assert.ok(incoming.length >= 9, 'every request was logged');
    for (const line of incoming) assert.equal(typeof line.reqId, 'string');
    assert.ok(lines.some((line) => line.msg === 'request refused' && typeof line.reqId === 'string'));
    assert.deepEqual(leakingLines(service.logs), []);
    assert.ok(service.logs.lines.some((line) => line.includes('vk_[redacted]')), 'the URL with the key was logged, scrubbed');
  });
});

describe('scrubSecrets', () => {
  it('blanks keys and bearer or basic credentials in any text', () => {
    const key = 'vk_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopq';
    assert.equal(scrubSecrets(`{"url":"/x?key=${key}"}`), '{"url":"/x?key=vk_[redacted]"}');
    assert.equal(scrubSecrets('{"h":"Bearer abc.def"}'), '{"h":"Bearer [redacted]"}');
    assert.equal(scrubSecrets('{"h":"basic dXNlcjpwYXNz"}'), '{"h":"basic [redacted]"}');
    assert.equal(scrubSecrets('{"prefix":"vk_ABCDEFGH"}'), '{"prefix":"vk_ABCDEFGH"}', 'a key prefix is not a secret');
    assert.equal(
      scrubSecrets('{"url":"/password-reset/confirm?token=AbC-123_xyz","msg":"incoming request"}'),
      '{"url":"/password-reset/confirm?token=[redacted]","msg":"incoming request"}',
      'a reset token in a request URL',
    );
    assert.equal(
      scrubSecrets('{"url":"/email/confirm?x=1&t%6Fken=AbC&%74oken=DeF&_csrf=GhI&next=%2Fa"}'),
      '{"url":"/email/confirm?x=1&t%6Fken=[redacted]&%74oken=[redacted]&_csrf=[redacted]&next=%2Fa"}',
      'a token however its name is spelt, and a form token; other parameters kept',
    );
    assert.equal(scrubSecrets('{"url":"/a?q=\\"&token=AbC"}'), '{"url":"/a?q=\\"&token=[redacted]"}', 'past an escaped quote');
  });
});
