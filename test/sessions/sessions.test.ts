// Sessions and admin audit records on every store: SQLite, PostgreSQL and Redis for sessions.
// Sessions survive a restart, and two nodes sharing a store honour each other's sessions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '../../src/accounts/accounts.ts';
import { changeAccount, editPlan, grantCredits } from '../../src/accounts/admin.ts';
import { listAudit } from '../../src/accounts/audit.ts';
import { listLedger } from '../../src/accounts/credits.ts';
import { hashPassword } from '../../src/accounts/passwords.ts';
import { createRedisSessionStore } from '../../src/sessions/redis.ts';
import { createSqlSessionStore, SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, type SessionStore } from '../../src/sessions/sessions.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { connectRedis } from '../../src/store/redis.ts';
import { PageClient } from '../helpers/pages.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { dialects, limitsBackends, REDIS_TEST_URL, type TestDatabase } from '../helpers/stores.ts';

const PASSWORD = 'long enough password';
const T0 = Date.UTC(2026, 10, 21, 9, 0, 0, 0);

/** The same checks for every session store. */
function sessionStoreChecks(
  name: string,
  skip: string | false,
  open: () => Promise<{ sessions: SessionStore; accountId: string; otherAccountId: string; done(): Promise<void> }>,
) {
  describe(`session store (${name})`, { skip }, () => {
    let sessions: SessionStore;
    let accountId: string;
    let otherAccountId: string;
    let done: () => Promise<void>;
    before(async () => {
      ({ sessions, accountId, otherAccountId, done } = await open());
    });
    after(async () => {
      await done();
    });

    it('finds a live session by its id, and never by anything else', async () => {
      const session = await sessions.create(accountId, 'csrf-secret', T0);
      const found = await sessions.find(session.id, T0 + 1000);
      assert.deepEqual(found, { id: session.id, accountId, csrfSecret: 'csrf-secret', createdAt: T0, lastSeenAt: T0 });
      assert.equal(await sessions.find(`${session.id}x`, T0), undefined);
      assert.notEqual((await sessions.create(accountId, 's', T0)).id, session.id);
    });

    it('ends a session after 24 hours idle; a touch extends it, never past 14 days', async () => {
      const idle = await sessions.create(accountId, 's', T0);
      assert.ok(await sessions.find(idle.id, T0 + SESSION_IDLE_MS - 1));
      assert.equal(await sessions.find(idle.id, T0 + SESSION_IDLE_MS), undefined);

      const busy = await sessions.create(accountId, 's', T0);
      let now = T0;
      while (now + SESSION_IDLE_MS / 2 < T0 + SESSION_ABSOLUTE_MS) {
        now += SESSION_IDLE_MS / 2;
        const live = await sessions.find(busy.id, now);
        assert.ok(live, `alive at +${(now - T0) / 3_600_000} h`);
        await sessions.touch(live, now);
      }
      assert.equal(await sessions.find(busy.id, T0 + SESSION_ABSOLUTE_MS), undefined, 'ended at 14 days however busy');
    });

    it('destroys one session, or every session of an account', async () => {
      const one = await sessions.create(accountId, 's', T0);
      const two = await sessions.create(accountId, 's', T0);
      const three = await sessions.create(accountId, 's', T0);
      const other = await sessions.create(otherAccountId, 's', T0);
      await sessions.destroy(one.id);
      assert.equal(await sessions.find(one.id, T0), undefined);
      assert.ok(await sessions.find(two.id, T0));
      await sessions.destroyAccount(accountId, three.id);
      assert.equal(await sessions.find(two.id, T0), undefined, 'every other session of the account ends');
      assert.ok(await sessions.find(three.id, T0), 'but the one kept');
      await sessions.destroyAccount(accountId);
      assert.equal(await sessions.find(three.id, T0), undefined);
      assert.ok(await sessions.find(other.id, T0), 'sessions of others stay');
    });
  });
}

const databases = await dialects();
for (const dialect of databases) {
  let database: TestDatabase;
  let store: Store;
  sessionStoreChecks(dialect.dialect, dialect.skip, async () => {
    database = await dialect.create();
    store = await openStore(database.url);
    const account = await createAccount(store.db, { email: 'sessions@example.com' });
    const other = await createAccount(store.db, { email: 'others@example.com' });
    return {
      sessions: createSqlSessionStore(store.db),
      accountId: account.id,
      otherAccountId: other.id,
      async done() {
        await store.close();
        await database.drop();
      },
    };
  });

  describe(`session purge and audit records (${dialect.dialect})`, { skip: dialect.skip }, () => {
    let database: TestDatabase;
    let store: Store;
    before(async () => {
      database = await dialect.create();
      store = await openStore(database.url);
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    it('purges expired sessions and keeps live ones', async () => {
      const sessions = createSqlSessionStore(store.db);
      const owner = await createAccount(store.db, { email: 'purged@example.com' });
      const old = await sessions.create(owner.id, 's', T0);
      const fresh = await sessions.create(owner.id, 's', T0 + SESSION_IDLE_MS);
      assert.equal(await sessions.purgeExpired(T0 + SESSION_IDLE_MS + 1), 1);
      assert.equal(await sessions.find(old.id, T0), undefined);
      assert.ok(await sessions.find(fresh.id, T0 + SESSION_IDLE_MS + 1));
    });

    it('records every admin change with the admin, in the audit record or the ledger', async () => {
      const account = await createAccount(store.db, { email: 'audited@example.com' }, T0 - 1);
      await changeAccount(store.db, 'admin@example.com', account.id, { plan: 'pro', status: 'suspended', role: 'admin' }, T0);
      await editPlan(store.db, 'admin@example.com', 'team', { dailyQuota: 600, concurrency: 4 }, T0 + 1);
      await grantCredits(store.db, 'admin@example.com', account.id, { pack: 500 }, T0 + 2);
      const audit = await listAudit(store.db, account.id);
      assert.deepEqual(
        audit.map((e) => [e.actor, e.action, e.detail]),
        [['admin@example.com', 'account changed', 'plan free → pro, status active → suspended, role user → admin']],
      );
      const all = await listAudit(store.db);
      assert.equal(all[0]?.action, 'plan team changed');
      assert.equal(all[0]?.detail, 'daily quota 500 → 600, concurrency none → 4');
      const ledger = await listLedger(store.db, account.id);
      assert.equal(ledger[0]?.reason, 'credit pack of 500, added by admin@example.com');
      assert.equal(ledger[0]?.kind, 'pack');
      await assert.rejects(grantCredits(store.db, 'admin@example.com', account.id, { pack: 70 }), /one of 50, 200, 500/);
    });
  });

  describe(`no stored session for anonymous visitors (${dialect.dialect})`, { skip: dialect.skip }, () => {
    it('stores nothing for 300 anonymous page views with forms, and one session at a log-in', async () => {
      const database = await dialect.create();
      const service = await startTestService(database);
      try {
        await anonymousViewsStoreNothing(service, async () => Number((await service.store.db.selectFrom('sessions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n));
      } finally {
        await service.close();
        await database.drop();
      }
    });
  });

  describe(`web sessions across a restart and across nodes (${dialect.dialect})`, { skip: dialect.skip }, () => {
    let database: TestDatabase;
    before(async () => {
      database = await dialect.create();
    });
    after(async () => {
      await database.drop();
    });

    it('keeps a session through a restart (SESSION_SECRET unset: the signing key is in the store)', async () => {
      let service: TestService = await startTestService(database);
      const client = service.pages();
      try {
        await client.signUp('restart@example.com', PASSWORD);
        assert.equal((await client.get('/account')).status, 200);
      } finally {
        await service.close();
      }
      service = await startTestService(database);
      try {
        const again = service.pages();
        for (const [name, value] of client.cookies) again.cookies.set(name, value);
        const page = await again.get('/account');
        assert.equal(page.status, 200);
        assert.match(page.html, /restart@example\.com/);
      } finally {
        await service.close();
      }
    });

    it('honours on one node a session made on another, and a log-out on either ends it for both', async () => {
      const nodeA = await startTestService(database);
      const nodeB = await startTestService(database);
      try {
        const onA = nodeA.pages();
        await onA.signUp('nodes@example.com', PASSWORD);
        const onB = new PageClient(nodeB.url);
        for (const [name, value] of onA.cookies) onB.cookies.set(name, value);
        const page = await onB.get('/account');
        assert.equal(page.status, 200);
        assert.match(page.html, /nodes@example\.com/);
        assert.equal((await onB.submit('/account', '/logout', {})).status, 303);
        assert.equal((await onA.get('/account')).status, 303, 'logged out on node A too');
      } finally {
        await nodeB.close();
        await nodeA.close();
      }
    });
  });
}

/**
 * Anonymous GETs of every page with a form, 100 each, from clients with and without cookies:
 * `stored()` stays 0; a log-in then stores exactly one session.
 */
async function anonymousViewsStoreNothing(service: TestService, stored: () => Promise<number>): Promise<void> {
  const returning = service.pages();
  for (const path of ['/login', '/signup', '/password-reset']) {
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        assert.equal((await fetch(`${service.url}${path}`)).status, 200);
        assert.equal((await returning.get(path)).status, 200);
      }),
    );
  }
  assert.equal(await stored(), 0, 'no session stored for anonymous visitors');
  // Their forms still work: the token is tied to the visitor's signed cookie.
  await createAccount(service.store.db, { email: 'visitor@example.com', passwordHash: await hashPassword(PASSWORD) });
  assert.equal((await returning.logIn('visitor@example.com', PASSWORD)).status, 303);
  assert.equal(await stored(), 1, 'one session, made at the log-in');
}

const redis = (await limitsBackends()).find((backend) => backend.name === 'redis');
sessionStoreChecks('redis', redis?.skip ?? 'no Redis backend', async () => {
  const env = redis!.env();
  const connection = await connectRedis(REDIS_TEST_URL);
  const sessions = createRedisSessionStore(connection, env.REDIS_PREFIX!);
  return {
    sessions,
    accountId: 'acc_redis_test',
    otherAccountId: 'acc_redis_other',
    async done() {
      await sessions.close();
      connection.disconnect();
      await redis!.cleanup();
    },
  };
});

describe('no stored session for anonymous visitors (Redis)', { skip: redis?.skip ?? 'no Redis backend' }, () => {
  it('writes no session key to Redis for 300 anonymous page views, and one at a log-in', async () => {
    const database = await redis!.createDatabase();
    const env = redis!.env();
    const service = await startTestService(database, { env });
    const connection = await connectRedis(REDIS_TEST_URL);
    try {
      await anonymousViewsStoreNothing(service, async () => (await connection.keys(`${env.REDIS_PREFIX}session:*`)).length);
      const rows = await service.store.db.selectFrom('sessions').select('id_hash').execute();
      assert.deepEqual(rows, [], 'nor in the SQL store');
    } finally {
      connection.disconnect();
      await service.close();
      await redis!.cleanup();
      await database.drop();
    }
  });
});

describe('web sessions in Redis shared by two nodes', { skip: redis?.skip ?? 'no Redis backend' }, () => {
  it('keeps sessions in Redis when REDIS_URL is set, and both nodes honour them', async () => {
    const database = await redis!.createDatabase();
    const env = redis!.env();
    const nodeA = await startTestService(database, { env });
    const nodeB = await startTestService(database, { env });
    try {
      const onA = nodeA.pages();
      await onA.signUp('redis-nodes@example.com', PASSWORD);
      const rows = await nodeA.store.db.selectFrom('sessions').select('id_hash').execute();
      assert.deepEqual(rows, [], 'nothing in the SQL store');
      const onB = new PageClient(nodeB.url);
      for (const [name, value] of onA.cookies) onB.cookies.set(name, value);
      assert.equal((await onB.get('/account')).status, 200);
    } finally {
      await nodeB.close();
      await nodeA.close();
      await redis!.cleanup();
      await database.drop();
    }
  });
});
