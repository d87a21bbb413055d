// What is for sale: the credit packs and the paid plans, each a row with a price and a currency,
// editable by an admin like the plans. Checkout sends the row's price to Stripe as it is at that
// moment (price_data), so no product has to be created in Stripe's dashboard first.
import type { Kysely } from 'kysely';
import { DomainError } from '../errors.ts';
import type { Db } from '../store/database.ts';
import type { Schema } from '../store/schema.ts';

export interface Price {
  /** `pack_50`, `plan_pro`, … */
  product: string;
  kind: 'pack' | 'plan';
  /** Credits a pack adds (0 for a plan). */
  credits: number;
  /** The plan a plan product puts the account on. */
  plan: string | null;
  /** `month` for a subscription; null for a one-time payment (packs, lifetime). */
  billingInterval: 'month' | null;
  /** In the currency's smallest unit (cents). */
  unitAmount: number;
  /** ISO 4217, lower case. */
  currency: string;
  active: boolean;
}

function priceFromRow(row: Schema['prices']): Price {
  return {
    product: row.product,
    kind: row.kind === 'plan' ? 'plan' : 'pack',
    credits: Number(row.credits),
    plan: row.plan,
    billingInterval: row.billing_interval === 'month' ? 'month' : null,
    unitAmount: Number(row.unit_amount),
    currency: row.currency,
    active: Number(row.active) === 1,
  };
}

export async function listPrices(db: Db, options: { activeOnly?: boolean } = {}): Promise<Price[]> {
  let query = db.selectFrom('prices').selectAll().orderBy('sort_order').orderBy('product');
  if (options.activeOnly) query = query.where('active', '=', 1);
  return (await query.execute()).map(priceFromRow);
}

export async function findPrice(db: Db, product: string): Promise<Price | undefined> {
  const row = await db.selectFrom('prices').selectAll().where('product', '=', product).executeTakeFirst();
  return row ? priceFromRow(row) : undefined;
}

/** Digits after the decimal point of a currency (2 for usd, 0 for jpy), as Intl knows them. */
export function currencyDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** The ISO 4217 currencies this runtime's Intl knows (a well-formed but unknown code is not one). */
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

export function isCurrency(code: string): boolean {
  return /^[a-z]{3}$/i.test(code) && CURRENCIES.has(code.toUpperCase());
}

/** `1200, usd` → `$12.00`. */
export function formatMoney(amount: number, currency: string): string {
  const digits = currencyDigits(currency);
  return new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() }).format(amount / 10 ** digits);
}

/** What the price reads as: `$5.00`, `$12.00 a month`. */
export function priceText(price: Price): string {
  return `${formatMoney(price.unitAmount, price.currency)}${price.billingInterval === 'month' ? ' a month' : ''}`;
}

/** The product's name as Checkout and the pages show it. */
export function productName(price: Price): string {
  if (price.kind === 'pack') return `${price.credits} credits`;
  const plan = price.plan ?? price.product;
  return `${plan.charAt(0).toUpperCase()}${plan.slice(1)} plan${price.billingInterval === 'month' ? ' (monthly)' : ''}`;
}

/** `12.00` in a currency → its smallest unit (1200); throws naming the field when it is not a price. */
export function parseMoney(text: string, currency: string): number {
  if (!isCurrency(currency)) throw new DomainError('invalid_input', `currency: an ISO 4217 code such as usd or eur, got ${JSON.stringify(currency)}`);
  const digits = currencyDigits(currency);
  const pattern = digits === 0 ? /^\d+$/ : new RegExp(`^\\d+(\\.\\d{1,${digits}})?$`);
  const trimmed = text.trim();
  if (!pattern.test(trimmed)) {
    throw new DomainError('invalid_input', `amount: a price such as ${digits === 0 ? '500' : `12.${'0'.repeat(digits)}`} in ${currency.toUpperCase()}, got ${JSON.stringify(text)}`);
  }
  const [whole = '0', fraction = ''] = trimmed.split('.');
  const minor = Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
  if (!Number.isSafeInteger(minor) || minor > 99_999_999) throw new DomainError('invalid_input', 'amount: at most 999999.99');
  return minor;
}

export interface PriceChanges {
  unitAmount?: number;
  currency?: string;
  active?: boolean;
}

/** Changes a price; returns it before and after, for the audit record. */
export async function updatePrice(db: Kysely<Schema>, product: string, changes: PriceChanges): Promise<{ before: Price; after: Price }> {
  const before = await findPrice(db, product);
  if (!before) throw new DomainError('invalid_input', `unknown product: ${JSON.stringify(product)}`);
  const values: Partial<Schema['prices']> = {};
  if (changes.currency !== undefined) {
    if (!isCurrency(changes.currency)) throw new DomainError('invalid_input', `currency: an ISO 4217 code such as usd or eur, got ${JSON.stringify(changes.currency)}`);
    values.currency = changes.currency.toLowerCase();
  }
  if (changes.unitAmount !== undefined) {
    if (!Number.isSafeInteger(changes.unitAmount) || changes.unitAmount < 1) throw new DomainError('invalid_input', 'amount: more than zero');
    values.unit_amount = changes.unitAmount;
  }
  if (changes.active !== undefined) values.active = changes.active ? 1 : 0;
  if (Object.keys(values).length > 0) await db.updateTable('prices').set(values).where('product', '=', product).execute();
  const after = await findPrice(db, product);
  return { before, after: after as Price };
}
