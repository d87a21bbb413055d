import assert from 'node:assert/strict';
import { test } from 'node:test';
import { negotiate, NotAcceptable } from '../../../src/http/api/negotiate.ts';

function chosen(accept: string | undefined): string {
  const result = negotiate(accept);
  return result.kind === 'json' ? 'json' : `${result.format} ${result.mediaType}`;
}

test('no Accept, */*, application/json and application/* mean the JSON response', () => {
  for (const accept of [undefined, '', '*/*', 'application/json', 'application/*', 'text/html,application/xhtml+xml,*/*;q=0.8']) {
    assert.equal(chosen(accept), 'json', String(accept));
  }
});

test('each file type by its media type, parameters and case ignored', () => {
  assert.equal(chosen('image/svg+xml'), 'svg image/svg+xml');
  assert.equal(chosen('application/pdf'), 'pdf application/pdf');
  assert.equal(chosen('application/postscript'), 'eps application/postscript');
  assert.equal(chosen('image/vnd.dxf'), 'dxf image/vnd.dxf');
  assert.equal(chosen('application/dxf'), 'dxf application/dxf');
  assert.equal(chosen('IMAGE/PNG; charset=x'), 'png image/png');
  assert.equal(chosen('image/*'), 'svg image/svg+xml');
});

test('q-values decide; the most specific range sets a type’s q', () => {
  assert.equal(chosen('application/json;q=0.5, application/pdf'), 'pdf application/pdf');
  assert.equal(chosen('image/png;q=0.9, image/svg+xml;q=0.4'), 'png image/png');
  assert.equal(chosen('*/*;q=0.1, image/png'), 'png image/png');
  assert.equal(chosen('image/*, image/svg+xml;q=0'), 'dxf image/vnd.dxf');
});

test('an Accept that excludes or names nothing returned is NotAcceptable', () => {
  for (const accept of ['text/html', 'image/jpeg', 'application/pdf;q=0', '*/*;q=0', 'garbage', 'image/*;q=0, application/*;q=0']) {
    assert.throws(() => negotiate(accept), NotAcceptable, accept);
  }
  assert.throws(() => negotiate('text/html'), /application\/json, image\/svg\+xml, application\/pdf, application\/postscript, image\/vnd\.dxf, application\/dxf, image\/png/);
});
