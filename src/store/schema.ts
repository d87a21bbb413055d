// Table types for Kysely. Timestamps are epoch milliseconds; booleans are 0/1 integers,
// so the same queries run on SQLite and PostgreSQL.
import type { Generated } from 'kysely';

export interface PlansTable {
  name: string;
  metered: number;
  signup_credits: number;
  daily_quota: number | null;
  burst_per_second: number | null;
  concurrency: number | null;
}

export interface AccountsTable {
  id: string;
  email: string;
  plan: string;
  status: string;
  credits: number;
  created_at: number;
  /** `user` or `admin` (the admin pages). */
  role: string;
  /** scrypt hash (src/accounts/passwords.ts); null until a password is set. Never selected with the account. */
  password_hash: string | null;
  /** When the email was proven by a mailed link (or vouched for by the operator); null until then. */
  email_verified_at: number | null;
  /** Set when the holder deleted the account: the row stays, anonymous, for its ledger. */
  deleted_at: number | null;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  prefix: string;
  key_hash: string;
  name: string | null;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  /** 1 for a test key (`vk_test_`): free, watermarked, its own limits. */
  test: number;
}

export interface LedgerTable {
  id: Generated<number>;
  account_id: string;
  delta: number;
  kind: string;
  reason: string;
  conversion_id: string | null;
  created_at: number;
  /** Stripe's ids behind a payment, grant or reversal (event, payment, charge, invoice…). */
  stripe_ref: string | null;
}

export interface ReservationsTable {
  id: string;
  account_id: string;
  amount: number;
  state: string;
  created_at: number;
  lease_expires_at: number;
}

export interface ConversionsTable {
  id: string;
  account_id: string;
  original_name: string;
  file_size: number;
  width: number;
  height: number;
  node_count: number;
  processing_time_ms: number;
  /** The engine's fidelity score, 0–1; null before it was recorded. */
  fidelity: number | null;
  params: string;
  resolved: string;
  created_at: number;
  /** 1 when made with a test key (free, watermarked). */
  test: number;
  /** The cut report as JSON, or null when none was asked for. */
  report: string | null;
}

/**
 * What a converter conversion needs to write its result again in any format (issue 20): the
 * upload and its parameters, kept for a short retention (src/conversion/sources.ts).
 */
export interface ConversionSourcesTable {
  conversion_id: string;
  account_id: string;
  original_name: string;
  /** The uploaded image's bytes. */
  image: Buffer;
  /** The effective TraceParams as JSON. */
  params: string;
  /** The SVG the conversion returned: the SVG download, unchanged, needs no new trace. */
  svg: string;
  created_at: number;
}

/** Web sessions (src/sessions/sessions.ts), of logged-in accounts only; the cookie holds the id, the table only its SHA-256. */
export interface SessionsTable {
  id_hash: string;
  account_id: string | null;
  /** Secret of the session's CSRF tokens. */
  csrf_secret: string;
  created_at: number;
  last_seen_at: number;
  /** Idle limit: last_seen_at + 24 h, capped at created_at + 14 days. */
  expires_at: number;
}

export interface PasswordResetsTable {
  token_hash: string;
  account_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** Single-use links mailed to prove an address: `verify` (sign-up) and `change` (a new email). */
export interface EmailTokensTable {
  token_hash: string;
  account_id: string;
  purpose: string;
  /** The address the link was mailed to, which it proves. */
  email: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** SHA-256 of every email that was given the free sign-up credits: once per address, ever. */
export interface SignupGrantsTable {
  email_hash: string;
  created_at: number;
}

/** What an admin changed that the ledger does not record (plan, status, role, keys, plan limits). */
export interface AuditTable {
  id: Generated<number>;
  actor: string;
  action: string;
  account_id: string | null;
  detail: string;
  created_at: number;
}

/** Values generated once and shared by every node on the store (the session secret when unset). */
export interface SettingsTable {
  name: string;
  value: string;
}

/** Credits a refund or dispute took back beyond the balance; later grants settle it first (docs/limits.md). */
export interface CreditDebtsTable {
  account_id: string;
  amount: number;
  updated_at: number;
}

/** The account's Stripe customer (cus_…), once a checkout made one: the customer portal needs it. */
export interface StripeCustomersTable {
  account_id: string;
  customer_id: string;
  created_at: number;
}

/** What is for sale, and at what price: credit packs and paid plans (src/payments/prices.ts). */
export interface PricesTable {
  product: string;
  /** `pack` (credits) or `plan`. */
  kind: string;
  credits: number;
  plan: string | null;
  /** `month` for a subscription; null for a one-time payment. */
  billing_interval: string | null;
  /** In the currency's smallest unit (cents). */
  unit_amount: number;
  /** ISO 4217, lower case, as Stripe writes it. */
  currency: string;
  active: number;
  sort_order: number;
}

/** Each Stripe webhook event applied, recorded in the transaction that applied it. */
export interface StripeEventsTable {
  id: string;
  type: string;
  account_id: string | null;
  outcome: string;
  event_created_at: number;
  received_at: number;
}

/**
 * One payment as Stripe reported it (keyed by its PaymentIntent, or its invoice for a
 * subscription), and how much of it the ledger has applied (src/payments/purchases.ts).
 */
export interface PurchasesTable {
  id: string;
  account_id: string | null;
  product: string | null;
  credits: number;
  plan: string | null;
  amount: number | null;
  currency: string | null;
  paid: number;
  amount_refunded: number;
  disputed: number;
  credits_granted: number;
  credits_reversed: number;
  /** One-time plan purchases (lifetime): `none`, `granted`, `revoked`. */
  plan_state: string;
  checkout_session_id: string | null;
  charge_id: string | null;
  invoice_id: string | null;
  subscription_id: string | null;
  customer_id: string | null;
  receipt_url: string | null;
  created_at: number;
  updated_at: number;
}

/** A Stripe subscription to a paid plan, as its newest event described it. */
export interface SubscriptionsTable {
  id: string;
  account_id: string;
  plan: string;
  status: string;
  cancel_at_period_end: number;
  current_period_end: number | null;
  customer_id: string | null;
  /** `created` of the newest event applied (ms): an older one arriving later changes nothing. */
  last_event_at: number;
  /** `none` (not started), `granted` (the account is on the plan), `ended` (taken back). */
  plan_state: string;
  /** When the plan goes back to free (the end of the period paid for), once the subscription ended. */
  ends_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface Schema {
  plans: PlansTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  ledger: LedgerTable;
  reservations: ReservationsTable;
  conversions: ConversionsTable;
  conversion_sources: ConversionSourcesTable;
  sessions: SessionsTable;
  password_resets: PasswordResetsTable;
  audit: AuditTable;
  settings: SettingsTable;
  email_tokens: EmailTokensTable;
  signup_grants: SignupGrantsTable;
  credit_debts: CreditDebtsTable;
  stripe_customers: StripeCustomersTable;
  prices: PricesTable;
  stripe_events: StripeEventsTable;
  purchases: PurchasesTable;
  subscriptions: SubscriptionsTable;
}
