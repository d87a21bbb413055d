import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, DEFAULT_SQLITE_URL, loadConfig } from '../src/config.ts';

describe('config', () => {
  it('has the contract defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.databaseUrl, DEFAULT_SQLITE_URL);
    assert.equal(config.retentionDays, 30);
    assert.equal(config.maxUploadBytes, 10 * 1024 * 1024);
    assert.equal(config.redisUrl, undefined);
  });

  it('reports every bad variable at once, by name', () => {
    assert.throws(
      () => loadConfig({ PORT: 'eighty', RETENTION_DAYS: '0', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud', WORKERS: '-1' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        const text = error.message;
        for (const name of ['PORT', 'RETENTION_DAYS', 'DATABASE_URL', 'LOG_LEVEL', 'WORKERS']) assert.match(text, new RegExp(name));
        assert.equal(error.problems.length, 5);
        return true;
      },
    );
  });

  it('defaults and checks the web defences: upload slots per account, sign-up and mail caps, password work', () => {
    const config = loadConfig({ WORKERS: '2' });
    assert.equal(config.maxConcurrentUploads, 8);
    assert.equal(config.maxUploadsPerAccount, 4, 'half the slots');
    assert.equal(config.signupsPerAddressPerHour, 5);
    assert.equal(config.signupsPerHour, 100);
    assert.equal(config.mailsPerAddressPerHour, 3);
    assert.equal(config.passwordHashConcurrency, 2);
    assert.equal(loadConfig({ MAX_CONCURRENT_UPLOADS: '1' }).maxUploadsPerAccount, 1);
    assert.equal(loadConfig({ MAX_CONCURRENT_UPLOADS: '10', MAX_UPLOADS_PER_ACCOUNT: '9' }).maxUploadsPerAccount, 9);
    assert.throws(
      () =>
        loadConfig({
          MAX_CONCURRENT_UPLOADS: '8',
          MAX_UPLOADS_PER_ACCOUNT: '8',
          SIGNUPS_PER_ADDRESS_PER_HOUR: '0',
          SIGNUPS_PER_HOUR: 'many',
          MAILS_PER_ADDRESS_PER_HOUR: '-3',
          PASSWORD_HASH_CONCURRENCY: '65',
        }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        for (const name of ['MAX_UPLOADS_PER_ACCOUNT must be below MAX_CONCURRENT_UPLOADS (8)', 'SIGNUPS_PER_ADDRESS_PER_HOUR', 'SIGNUPS_PER_HOUR', 'MAILS_PER_ADDRESS_PER_HOUR', 'PASSWORD_HASH_CONCURRENCY']) {
          assert.ok(error.problems.some((problem) => problem.includes(name)), name);
        }
        assert.equal(error.problems.length, 5);
        return true;
      },
    );
  });

  it('refuses REDIS_URL over SQLite, saying that SQLite cannot be shared between nodes', () => {
    for (const env of [{ REDIS_URL: 'redis://127.0.0.1:6379' }, { REDIS_URL: 'redis://127.0.0.1:6379', DATABASE_URL: 'sqlite:/tmp/x.db' }]) {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.equal(error.problems.length, 1);
          assert.match(error.message, /REDIS_URL/);
          assert.match(error.message, /DATABASE_URL/);
          assert.match(error.message, /SQLite cannot be shared between nodes/);
          return true;
        },
      );
    }
    const shared = loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', DATABASE_URL: 'postgres://u@h/db' });
    assert.equal(shared.redisUrl, 'redis://127.0.0.1:6379');
  });

  it('sizes the PostgreSQL pool from DATABASE_POOL_SIZE (default 10)', () => {
    assert.equal(loadConfig({}).databasePoolSize, 10);
    assert.equal(loadConfig({ DATABASE_POOL_SIZE: '25' }).databasePoolSize, 25);
    assert.throws(() => loadConfig({ DATABASE_POOL_SIZE: '1' }), /DATABASE_POOL_SIZE must be an integer from 2 to 1000/);
  });

  it('accepts sqlite and postgres URLs', () => {
    assert.equal(loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.db' }).databaseUrl, 'sqlite:/tmp/x.db');
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).databaseUrl, 'postgres://u@h/db');
  });
});

describe('web application variables', () => {
  it('defaults PUBLIC_URL to localhost and the port, keeps SMTP_URL and SESSION_SECRET out of messages', () => {
    const config = loadConfig({ PORT: '9000' });
    assert.equal(config.publicUrl, 'http://localhost:9000');
    assert.equal(config.smtpUrl, undefined);
    assert.equal(config.sessionSecrets, undefined);
    assert.equal(config.trustProxy, false);
    const set = loadConfig({ PUBLIC_URL: 'https://vec.example.com/', SESSION_SECRET: `${'a'.repeat(32)}, ${'b'.repeat(40)}`, TRUST_PROXY: 'loopback' });
    assert.equal(set.publicUrl, 'https://vec.example.com');
    assert.deepEqual(set.sessionSecrets, ['a'.repeat(32), 'b'.repeat(40)]);
    assert.equal(set.trustProxy, 'loopback');
    try {
      loadConfig({ PUBLIC_URL: 'ftp://x', SMTP_URL: 'http://user:hunter2@mail', SESSION_SECRET: 'short-secret' });
      assert.fail('accepted bad values');
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.problems.length, 3);
      assert.match(error.message, /PUBLIC_URL/);
      assert.match(error.message, /SMTP_URL/);
      assert.match(error.message, /SESSION_SECRET must be at least 32 characters/);
      assert.doesNotMatch(error.message, /hunter2|short-secret/);
    }
  });

  it('turns payments on with both Stripe secrets, maps STRIPE_API_BASE to host, port and protocol, and refuses half a setup', () => {
    assert.equal(loadConfig({}).stripe, undefined);
    const stripe = loadConfig({ STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_def', STRIPE_API_BASE: 'http://127.0.0.1:12111' }).stripe;
    assert.deepEqual(stripe, { secretKey: 'sk_test_abc', webhookSecret: 'whsec_def', apiBase: { host: '127.0.0.1', port: 12111, protocol: 'http' } });
    assert.deepEqual(loadConfig({ STRIPE_SECRET_KEY: 'rk_live_x', STRIPE_WEBHOOK_SECRET: 'whsec_y', STRIPE_API_BASE: 'https://stripe-proxy.internal' }).stripe?.apiBase, {
      host: 'stripe-proxy.internal',
      port: 443,
      protocol: 'https',
    });
    const refusals: [Record<string, string>, RegExp][] = [
      [{ STRIPE_SECRET_KEY: 'sk_test_abc' }, /STRIPE_WEBHOOK_SECRET must be set/],
      [{ STRIPE_WEBHOOK_SECRET: 'whsec_def' }, /STRIPE_SECRET_KEY must be set/],
      [{ STRIPE_SECRET_KEY: 'pk_test_public', STRIPE_WEBHOOK_SECRET: 'whsec_def' }, /STRIPE_SECRET_KEY must be a Stripe secret key/],
      [{ STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'secret' }, /STRIPE_WEBHOOK_SECRET must be the webhook endpoint's signing secret/],
      [{ STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_def', STRIPE_API_BASE: 'http://127.0.0.1:1/v1' }, /STRIPE_API_BASE must be http\(s\):\/\/host\[:port\] with no path/],
      [{ STRIPE_API_BASE: 'http://127.0.0.1:1' }, /STRIPE_API_BASE is set but STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are not/],
    ];
    for (const [env, message] of refusals) {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, message);
          assert.doesNotMatch(error.message, /sk_test_abc|whsec_def|pk_test_public/, 'secrets are never echoed');
          return true;
        },
      );
    }
  });
});
