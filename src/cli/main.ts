// The admin command line: `npm run --silent cli -- <group> <command> [options]`.
// It calls the same account modules as the server, on the same DATABASE_URL.
import { parseArgs } from 'node:util';
import { ACCOUNT_ROLES, ACCOUNT_STATUSES, createAccount, findAccountByEmail, normaliseEmail, type Account } from '../accounts/accounts.ts';
import { changeAccount, editPlan, editPrice, grantCredits } from '../accounts/admin.ts';
import { recordAudit } from '../accounts/audit.ts';
import { CREDIT_PACKS } from '../accounts/credits.ts';
import { createKey, listKeys, revokeKey } from '../accounts/keys.ts';
import { listPlans, type Plan } from '../accounts/plans.ts';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { DomainError } from '../errors.ts';
import { findPrice, formatMoney, listPrices, parseMoney, type Price } from '../payments/prices.ts';
import { createRedisSessionStore } from '../sessions/redis.ts';
import { createSqlSessionStore } from '../sessions/sessions.ts';
import { openStore, type Store } from '../store/database.ts';
import { connectRedis } from '../store/redis.ts';

class UsageError extends Error {}

/** Who the audit record and the ledger name for changes made here. */
const ACTOR = 'the command line';

/** The CLI names accounts by email; the account modules work by id. */
async function accountByEmail(store: Store, email: string): Promise<Account> {
  const account = await findAccountByEmail(store.db, email);
  if (!account) throw new DomainError('not_found', `no account with email ${normaliseEmail(email)}`);
  return account;
}

type Options = Record<string, string | boolean | undefined>;

/**
 * A ban ends the account's web sessions at once, where the server keeps them: the store, and
 * Redis when REDIS_URL is set. (The server also refuses a banned account's session by itself.)
 */
async function endSessions(store: Store, config: Config, accountId: string): Promise<void> {
  await createSqlSessionStore(store.db).destroyAccount(accountId);
  if (!config.redisUrl) return;
  const redis = await connectRedis(config.redisUrl);
  try {
    await createRedisSessionStore(redis, config.redisPrefix).destroyAccount(accountId);
  } finally {
    redis.disconnect();
  }
}

interface Command {
  usage: string;
  summary: string;
  options: Record<string, { type: 'string' | 'boolean' }>;
  run(store: Store, options: Options, config: Config): Promise<string>;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

function optional(options: Options, name: string): string | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} needs a value`);
  return value;
}

function wholeNumber(name: string, text: string, min: number): number {
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`--${name} must be an integer, got ${JSON.stringify(text)}`);
  }
  const value = Number(text);
  if (value < min) throw new UsageError(`--${name} must be at least ${min}, got ${value}`);
  return value;
}

/** `N` or `none` (no limit). */
function limit(options: Options, name: string): number | null | undefined {
  const text = optional(options, name);
  if (text === undefined) return undefined;
  if (text.trim().toLowerCase() === 'none') return null;
  return wholeNumber(name, text, name === 'daily-quota' ? 0 : 1);
}

function accountView(account: Account) {
  return {
    email: account.email,
    plan: account.plan.name,
    status: account.status,
    role: account.role,
    credits: account.credits,
    metered: account.plan.metered,
    created_at: iso(account.createdAt),
  };
}

function planView(plan: Plan) {
  return {
    name: plan.name,
    metered: plan.metered,
    signup_credits: plan.signupCredits,
    daily_quota: plan.dailyQuota,
    burst_per_second: plan.burstPerSecond,
    concurrency: plan.concurrency,
  };
}

function priceView(price: Price) {
  return {
    product: price.product,
    kind: price.kind,
    credits: price.kind === 'pack' ? price.credits : undefined,
    plan: price.plan ?? undefined,
    billing: price.billingInterval === 'month' ? 'monthly subscription' : 'one-time',
    price: formatMoney(price.unitAmount, price.currency),
    unit_amount: price.unitAmount,
    currency: price.currency,
    active: price.active,
  };
}

const COMMANDS: Record<string, Command> = {
  'account create': {
    usage: 'account create --email EMAIL [--plan free|pro|team|lifetime] [--credits N]',
    summary: 'Create an account (free plan and its sign-up credits unless told otherwise).',
    options: { email: { type: 'string' }, plan: { type: 'string' }, credits: { type: 'string' } },
    async run(store, options) {
      const credits = optional(options, 'credits');
      const account = await createAccount(store.db, {
        email: required(options, 'email'),
        plan: optional(options, 'plan'),
        credits: credits === undefined ? undefined : wholeNumber('credits', credits, 0),
      });
      return json(accountView(account));
    },
  },
  'account set': {
    usage: `account set --email EMAIL [--plan NAME] [--status ${ACCOUNT_STATUSES.join('|')}] [--role ${ACCOUNT_ROLES.join('|')}]`,
    summary: "Change an account's plan, status or role (admin: the admin pages); applies to its very next request.",
    options: { email: { type: 'string' }, plan: { type: 'string' }, status: { type: 'string' }, role: { type: 'string' } },
    async run(store, options, config) {
      const plan = optional(options, 'plan');
      const status = optional(options, 'status');
      const role = optional(options, 'role');
      if (plan === undefined && status === undefined && role === undefined) throw new UsageError('give --plan, --status or --role');
      const account = await accountByEmail(store, required(options, 'email'));
      const changed = await changeAccount(store.db, ACTOR, account.id, { plan, status, role });
      if (changed.status === 'banned') await endSessions(store, config, changed.id);
      return json(accountView(changed));
    },
  },
  'account show': {
    usage: 'account show --email EMAIL',
    summary: 'Show an account with its plan, status and credit balance.',
    options: { email: { type: 'string' } },
    async run(store, options) {
      return json(accountView(await accountByEmail(store, required(options, 'email'))));
    },
  },
  'key create': {
    usage: 'key create --email EMAIL [--name NAME] [--test]',
    summary:
      'Create an API key; prints the key alone, once. Only its hash is stored. --test makes a test key (vk_test_…): free conversions with watermarked results, under the test keys\' own limits.',
    options: { email: { type: 'string' }, name: { type: 'string' }, test: { type: 'boolean' } },
    async run(store, options) {
      const account = await accountByEmail(store, required(options, 'email'));
      const { key } = await createKey(store.db, account.id, optional(options, 'name'), Date.now(), { test: options.test === true });
      return key;
    },
  },
  'key list': {
    usage: 'key list --email EMAIL',
    summary: "List an account's keys: prefix, name, created, last used, revoked.",
    options: { email: { type: 'string' } },
    async run(store, options) {
      const keys = await listKeys(store.db, (await accountByEmail(store, required(options, 'email'))).id);
      return json(
        keys.map((k) => ({
          prefix: k.prefix,
          name: k.name,
          test: k.test,
          created_at: iso(k.createdAt),
          last_used_at: iso(k.lastUsedAt),
          revoked_at: iso(k.revokedAt),
        })),
      );
    },
  },
  'key revoke': {
    usage: 'key revoke --prefix KEY_PREFIX',
    summary: 'Revoke a key by its prefix (as `key list` shows it); applies to the very next request.',
    options: { prefix: { type: 'string' } },
    async run(store, options) {
      const key = await revokeKey(store.db, required(options, 'prefix'));
      await recordAudit(store.db, { actor: ACTOR, action: 'key revoked', accountId: key.accountId, detail: `key ${key.prefix}` });
      return json({ prefix: key.prefix, name: key.name, revoked_at: iso(key.revokedAt) });
    },
  },
  'credits add': {
    usage: `credits add --email EMAIL (--amount N | --pack ${CREDIT_PACKS.join('|')})`,
    summary: 'Add credits to an account (a grant, or a credit pack); recorded in the ledger.',
    options: { email: { type: 'string' }, amount: { type: 'string' }, pack: { type: 'string' } },
    async run(store, options) {
      const email = required(options, 'email');
      const amount = optional(options, 'amount');
      const pack = optional(options, 'pack');
      if ((amount === undefined) === (pack === undefined)) throw new UsageError('give exactly one of --amount N or --pack 50|200|500');
      let grant: { amount: number } | { pack: number };
      if (pack !== undefined) {
        const size = Number(pack);
        if (!(CREDIT_PACKS as readonly number[]).includes(size) || !/^\d+$/.test(pack)) {
          throw new UsageError(`--pack must be one of ${CREDIT_PACKS.join(', ')}, got ${JSON.stringify(pack)}`);
        }
        grant = { pack: size };
      } else {
        grant = { amount: wholeNumber('amount', amount as string, 1) };
      }
      const account = await accountByEmail(store, email);
      const credits = await grantCredits(store.db, ACTOR, account.id, grant);
      return json({ ...accountView(await accountByEmail(store, email)), credits });
    },
  },
  'plan set': {
    usage: 'plan set --name NAME [--daily-quota N|none] [--burst N|none] [--concurrency N|none]',
    summary: "Change a plan's limits; applies to the very next request of every account on it.",
    options: {
      name: { type: 'string' },
      'daily-quota': { type: 'string' },
      burst: { type: 'string' },
      concurrency: { type: 'string' },
    },
    async run(store, options) {
      const name = required(options, 'name');
      const changes = {
        dailyQuota: limit(options, 'daily-quota'),
        burstPerSecond: limit(options, 'burst'),
        concurrency: limit(options, 'concurrency'),
      };
      if (Object.values(changes).every((v) => v === undefined)) {
        throw new UsageError('give at least one of --daily-quota, --burst, --concurrency');
      }
      return json(planView(await editPlan(store.db, ACTOR, name, changes)));
    },
  },
  'price list': {
    usage: 'price list',
    summary: 'List what is for sale: credit packs and paid plans, with price, currency and whether on sale.',
    options: {},
    async run(store) {
      return json((await listPrices(store.db)).map(priceView));
    },
  },
  'price set': {
    usage: 'price set --product PRODUCT [--amount 12.00] [--currency usd] [--active yes|no]',
    summary: "Change a pack's or plan's price (in the currency's main unit), currency, or whether it is on sale; the next checkout uses it.",
    options: { product: { type: 'string' }, amount: { type: 'string' }, currency: { type: 'string' }, active: { type: 'string' } },
    async run(store, options) {
      const product = required(options, 'product');
      const amount = optional(options, 'amount');
      const currency = optional(options, 'currency')?.trim().toLowerCase();
      const active = optional(options, 'active');
      if (amount === undefined && currency === undefined && active === undefined) throw new UsageError('give at least one of --amount, --currency, --active');
      if (active !== undefined && active !== 'yes' && active !== 'no') throw new UsageError(`--active must be yes or no, got ${JSON.stringify(active)}`);
      const current = await findPrice(store.db, product);
      if (!current) throw new DomainError('not_found', `no product ${JSON.stringify(product)}; \`price list\` names them`);
      if (currency !== undefined && amount === undefined) throw new UsageError('--currency changes what --amount means: give both');
      const price = await editPrice(store.db, ACTOR, product, {
        ...(currency !== undefined ? { currency } : {}),
        ...(amount !== undefined ? { unitAmount: parseMoney(amount, currency ?? current.currency) } : {}),
        ...(active !== undefined ? { active: active === 'yes' } : {}),
      });
      return json(priceView(price));
    },
  },
  'plan list': {
    usage: 'plan list',
    summary: 'List the plans and their limits.',
    options: {},
    async run(store) {
      return json((await listPlans(store.db)).map(planView));
    },
  },
};

function overview(): string {
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage}\n      ${c.summary}`);
  return `Usage: npm run --silent cli -- <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nEvery command takes --help. The store is DATABASE_URL, as for the server.\n`;
}

function commandHelp(command: Command): string {
  return `Usage: npm run --silent cli -- ${command.usage}\n\n${command.summary}\n`;
}

/** `--amount -5` → `--amount=-5`, so a negative number reaches our range check instead of reading as a flag. */
function joinNegativeNumbers(args: string[]): string[] {
  const out: string[] = [];
  for (const arg of args) {
    const last = out.at(-1);
    if (/^-\d/.test(arg) && last?.startsWith('--') && !last.includes('=')) out[out.length - 1] = `${last}=${arg}`;
    else out.push(arg);
  }
  return out;
}

export async function runCli(argv: string[], out: (text: string) => void, err: (text: string) => void): Promise<number> {
  const [group, action, ...rest] = argv;
  if (group === undefined || group === '--help' || group === '-h' || group === 'help') {
    out(overview());
    return group === undefined ? 2 : 0;
  }
  const name = `${group} ${action ?? ''}`.trim();
  const command = COMMANDS[name];
  if (!command) {
    err(`error: unknown command ${JSON.stringify(name)}\n\n${overview()}`);
    return 2;
  }
  let options: Options;
  try {
    const parsed = parseArgs({
      args: joinNegativeNumbers(rest),
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    });
    options = parsed.values;
  } catch (error) {
    err(`error: ${(error as Error).message}\n\n${commandHelp(command)}`);
    return 2;
  }
  if (options.help) {
    out(commandHelp(command));
    return 0;
  }
  let store: Store | undefined;
  try {
    const config = loadConfig();
    store = await openStore(config.databaseUrl);
    out(`${await command.run(store, options, config)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      err(`error: ${error.message}\n\n${commandHelp(command)}`);
      return 2;
    }
    if (error instanceof DomainError || error instanceof ConfigError) {
      err(`error: ${error.message}\n`);
      return 1;
    }
    err(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await store?.close();
  }
}

const code = await runCli(
  process.argv.slice(2),
  (text) => process.stdout.write(text),
  (text) => process.stderr.write(text),
);
process.exitCode = code;
