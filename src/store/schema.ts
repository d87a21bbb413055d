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
  params: string;
  resolved: string;
  created_at: number;
}

export interface Schema {
  plans: PlansTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  ledger: LedgerTable;
  reservations: ReservationsTable;
  conversions: ConversionsTable;
}
