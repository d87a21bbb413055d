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

  it('accepts sqlite and postgres URLs', () => {
    assert.equal(loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.db' }).databaseUrl, 'sqlite:/tmp/x.db');
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).databaseUrl, 'postgres://u@h/db');
  });
});
