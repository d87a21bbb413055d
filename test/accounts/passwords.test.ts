// The bound on scrypt work: new hashes (sign-ups) never take the last slot, log-ins go first,
// and past the queue's limit a request is refused instead of waiting.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashPassword, passwordWork } from '../../src/accounts/passwords.ts';
import { isDomainError } from '../../src/errors.ts';

describe('password work', () => {
  it('checks a log-in on the slot that sign-ups leave free, before the hashes queued ahead of it', async () => {
    const work = passwordWork({ slots: 2, queueLimit: 16 });
    const stored = await hashPassword('the right password');
    const finished: string[] = [];
    const hashes = Array.from({ length: 5 }, (_, i) => work.hash(`password number ${i}`).then(() => finished.push(`hash ${i}`)));
    const login = work.verify('the right password', stored).then((ok) => {
      finished.push('log-in');
      return ok;
    });
    assert.equal(await login, true);
    await Promise.all(hashes);
    // Hashes run one at a time (2 slots, one kept for log-ins): the log-in, started beside the
    // first hash, ends before the second one even starts.
    assert.ok(finished.indexOf('log-in') <= 1, finished.join(', '));
    assert.deepEqual(
      finished.filter((name) => name.startsWith('hash')),
      ['hash 0', 'hash 1', 'hash 2', 'hash 3', 'hash 4'],
      'hashes in their order',
    );
  });

  it('refuses with 503 (unavailable) past its queue, and takes work again once it drains', async () => {
    const work = passwordWork({ slots: 1, queueLimit: 2 });
    const running = [work.hash('one password'), work.hash('two password'), work.hash('three password')];
    await assert.rejects(work.hash('four password'), (error) => isDomainError(error, 'unavailable') && error.details.retryAfterSeconds === 2);
    await Promise.all(running);
    assert.match(await work.hash('five password'), /^scrypt\$/);
  });
});
