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
}

export interface LedgerTable {
  id: Generated<number>;
  account_id: string;
  delta: number;
  kind: string;
  reason: string;
  conversion_id: string | null;
  created_at: number;
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

export interface Schema {
  plans: PlansTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  ledger: LedgerTable;
  reservations: ReservationsTable;
  conversions: ConversionsTable;
  sessions: SessionsTable;
  password_resets: PasswordResetsTable;
  audit: AuditTable;
  settings: SettingsTable;
  email_tokens: EmailTokensTable;
  signup_grants: SignupGrantsTable;
}
