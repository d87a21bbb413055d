// Schema migrations, kept in code so that an installed package carries them.
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Dialect } from './database.ts';

function migrations(dialect: Dialect): Record<string, Migration> {
  // The only dialect difference: how an auto-increment key is spelled.
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  return {
    '0001_initial': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('plans')
          .addColumn('name', 'text', (c) => c.primaryKey())
          .addColumn('metered', 'integer', (c) => c.notNull())
          .addColumn('signup_credits', 'integer', (c) => c.notNull())
          .addColumn('daily_quota', 'integer')
          .addColumn('burst_per_second', 'integer')
          .addColumn('concurrency', 'integer')
          .execute();
        await db
          .insertInto('plans' as never)
          .values([
            { name: 'free', metered: 1, signup_credits: 10, daily_quota: 5, burst_per_second: 2, concurrency: 1 },
            { name: 'pro', metered: 0, signup_credits: 0, daily_quota: 100, burst_per_second: null, concurrency: null },
            { name: 'team', metered: 0, signup_credits: 0, daily_quota: 500, burst_per_second: null, concurrency: null },
            { name: 'lifetime', metered: 0, signup_credits: 0, daily_quota: null, burst_per_second: null, concurrency: null },
          ] as never)
          .execute();

        await db.schema
          .createTable('accounts')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('email', 'text', (c) => c.notNull().unique())
          .addColumn('plan', 'text', (c) => c.notNull().references('plans.name'))
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('credits', 'integer', (c) => c.notNull().check(sql`credits >= 0`))
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();

        await db.schema
          .createTable('api_keys')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
          .addColumn('prefix', 'text', (c) => c.notNull().unique())
          .addColumn('key_hash', 'text', (c) => c.notNull().unique())
          .addColumn('name', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('last_used_at', 'bigint')
          .addColumn('revoked_at', 'bigint')
          .execute();
        await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();

        await db.schema
          .createTable('ledger')
          .addColumn('id', serial, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
          .addColumn('delta', 'integer', (c) => c.notNull())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('reason', 'text', (c) => c.notNull())
          .addColumn('conversion_id', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('ledger_account').on('ledger').column('account_id').execute();

        await db.schema
          .createTable('reservations')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
          .addColumn('amount', 'integer', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('lease_expires_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('reservations_state_lease')
          .on('reservations')
          .columns(['state', 'lease_expires_at'])
          .execute();

        await db.schema
          .createTable('conversions')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
          .addColumn('original_name', 'text', (c) => c.notNull())
          .addColumn('file_size', 'integer', (c) => c.notNull())
          .addColumn('width', 'integer', (c) => c.notNull())
          .addColumn('height', 'integer', (c) => c.notNull())
          .addColumn('node_count', 'integer', (c) => c.notNull())
          .addColumn('processing_time_ms', 'integer', (c) => c.notNull())
          .addColumn('params', 'text', (c) => c.notNull())
          .addColumn('resolved', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('conversions_account_created')
          .on('conversions')
          .columns(['account_id', 'created_at'])
          .execute();
        await db.schema.createIndex('conversions_created').on('conversions').column('created_at').execute();
      },
    },
    '0002_web': {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('accounts').addColumn('role', 'text', (c) => c.notNull().defaultTo('user')).execute();
        await db.schema.alterTable('accounts').addColumn('password_hash', 'text').execute();

        await db.schema
          .createTable('sessions')
          .addColumn('id_hash', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.references('accounts.id'))
          .addColumn('csrf_secret', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('sessions_expires').on('sessions').column('expires_at').execute();
        await db.schema.createIndex('sessions_account').on('sessions').column('account_id').execute();

        await db.schema
          .createTable('password_resets')
          .addColumn('token_hash', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addColumn('used_at', 'bigint')
          .execute();
        await db.schema.createIndex('password_resets_expires').on('password_resets').column('expires_at').execute();

        await db.schema
          .createTable('audit')
          .addColumn('id', serial, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('actor', 'text', (c) => c.notNull())
          .addColumn('action', 'text', (c) => c.notNull())
          .addColumn('account_id', 'text')
          .addColumn('detail', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('audit_account').on('audit').columns(['account_id', 'created_at']).execute();

        await db.schema
          .createTable('settings')
          .addColumn('name', 'text', (c) => c.primaryKey())
          .addColumn('value', 'text', (c) => c.notNull())
          .execute();
      },
    },
    '0100_security_accounts': {
      async up(db: Kysely<unknown>) {
        // Free credits wait for a verified email. Accounts from before were given theirs at
        // creation, so they count as verified.
        await db.schema.alterTable('accounts').addColumn('email_verified_at', 'bigint').execute();
        await sql`update accounts set email_verified_at = created_at`.execute(db);
        // A deleted account stays as an anonymous row that its ledger rows point at.
        await db.schema.alterTable('accounts').addColumn('deleted_at', 'bigint').execute();

        await db.schema
          .createTable('email_tokens')
          .addColumn('token_hash', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
          .addColumn('purpose', 'text', (c) => c.notNull())
          .addColumn('email', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addColumn('used_at', 'bigint')
          .execute();
        await db.schema.createIndex('email_tokens_account').on('email_tokens').column('account_id').execute();
        await db.schema.createIndex('email_tokens_expires').on('email_tokens').column('expires_at').execute();
        await db.schema.createIndex('password_resets_account').on('password_resets').column('account_id').execute();

        await db.schema
          .createTable('signup_grants')
          .addColumn('email_hash', 'text', (c) => c.primaryKey())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();

        // Anonymous visitors no longer get a stored session (their forms carry a signed token).
        await sql`delete from sessions where account_id is null`.execute(db);
      },
    },
    // Payments (Stripe) and test keys: prices as rows, purchases and subscriptions as Stripe
    // reports them, each webhook event recorded once, the debt a refund can leave, and test keys.
    '0400_payments_prices': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('prices')
          .addColumn('product', 'text', (c) => c.primaryKey())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('credits', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('plan', 'text', (c) => c.references('plans.name'))
          .addColumn('billing_interval', 'text')
          .addColumn('unit_amount', 'integer', (c) => c.notNull().check(sql`unit_amount >= 0`))
          .addColumn('currency', 'text', (c) => c.notNull())
          .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('sort_order', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
        await db
          .insertInto('prices' as never)
          .values([
            { product: 'pack_50', kind: 'pack', credits: 50, plan: null, billing_interval: null, unit_amount: 500, currency: 'usd', active: 1, sort_order: 1 },
            { product: 'pack_200', kind: 'pack', credits: 200, plan: null, billing_interval: null, unit_amount: 1500, currency: 'usd', active: 1, sort_order: 2 },
            { product: 'pack_500', kind: 'pack', credits: 500, plan: null, billing_interval: null, unit_amount: 3000, currency: 'usd', active: 1, sort_order: 3 },
            { product: 'plan_pro', kind: 'plan', credits: 0, plan: 'pro', billing_interval: 'month', unit_amount: 1200, currency: 'usd', active: 1, sort_order: 4 },
            { product: 'plan_team', kind: 'plan', credits: 0, plan: 'team', billing_interval: 'month', unit_amount: 3900, currency: 'usd', active: 1, sort_order: 5 },
            { product: 'plan_lifetime', kind: 'plan', credits: 0, plan: 'lifetime', billing_interval: null, unit_amount: 29900, currency: 'usd', active: 1, sort_order: 6 },
          ] as never)
          .execute();
      },
    },
    '0401_payments_stripe': {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('ledger').addColumn('stripe_ref', 'text').execute();
        await db.schema
          .createTable('credit_debts')
          .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
          .addColumn('amount', 'integer', (c) => c.notNull().check(sql`amount >= 0`))
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('stripe_customers')
          .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
          .addColumn('customer_id', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();

        await db.schema
          .createTable('stripe_events')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('account_id', 'text')
          .addColumn('outcome', 'text', (c) => c.notNull())
          .addColumn('event_created_at', 'bigint', (c) => c.notNull())
          .addColumn('received_at', 'bigint', (c) => c.notNull())
          .execute();

        await db.schema
          .createTable('purchases')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.references('accounts.id'))
          .addColumn('product', 'text')
          .addColumn('credits', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('plan', 'text')
          .addColumn('amount', 'integer')
          .addColumn('currency', 'text')
          .addColumn('paid', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('amount_refunded', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('disputed', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('credits_granted', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('credits_reversed', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('plan_state', 'text', (c) => c.notNull().defaultTo('none'))
          .addColumn('checkout_session_id', 'text', (c) => c.unique())
          .addColumn('charge_id', 'text')
          .addColumn('invoice_id', 'text')
          .addColumn('subscription_id', 'text')
          .addColumn('customer_id', 'text')
          .addColumn('receipt_url', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('purchases_account').on('purchases').columns(['account_id', 'created_at']).execute();

        await db.schema
          .createTable('subscriptions')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
          .addColumn('plan', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('cancel_at_period_end', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('current_period_end', 'bigint')
          .addColumn('customer_id', 'text')
          .addColumn('last_event_at', 'bigint', (c) => c.notNull())
          .addColumn('plan_state', 'text', (c) => c.notNull().defaultTo('none'))
          .addColumn('ends_at', 'bigint')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('subscriptions_account').on('subscriptions').column('account_id').execute();
        await db.schema.createIndex('subscriptions_ends').on('subscriptions').columns(['plan_state', 'ends_at']).execute();
      },
    },
    '0402_payments_test_keys': {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('api_keys').addColumn('test', 'integer', (c) => c.notNull().defaultTo(0)).execute();
        await db.schema.alterTable('conversions').addColumn('test', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      },
    },
    '0500_engine_fidelity': {
      async up(db: Kysely<unknown>) {
        // The engine's own score of each result (0–1); null for conversions recorded before it existed.
        await db.schema.alterTable('conversions').addColumn('fidelity', 'real').execute();
      },
    },
    // The cut report of a conversion (issue 19), for the result lookup; null where none was asked for.
    '0300_makers_conversion_report': {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('conversions').addColumn('report', 'text').execute();
      },
    },
    // What a converter conversion needs to be downloaded again in every format (issue 20), kept
    // for a short retention; purged by the housekeeping.
    '0600_downloads_conversion_sources': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('conversion_sources')
          .addColumn('conversion_id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
          .addColumn('original_name', 'text', (c) => c.notNull())
          .addColumn('image', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
          .addColumn('params', 'text', (c) => c.notNull())
          .addColumn('svg', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('conversion_sources_created').on('conversion_sources').column('created_at').execute();
      },
    },
  };
}

export async function migrateToLatest(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect) };
  // Each branch of the project numbers its migrations in a range of its own (0300 print and cut,
  // 0400 payments, 0500 engine, 0600 downloads), merged in any order: a database may have run a higher number
  // before a lower one arrives, which is then run all the same.
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`database migration failed${failed ? ` at ${failed.migrationName}` : ''}: ${String(error)}`);
  }
}
