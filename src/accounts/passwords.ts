// Passwords: scrypt at OWASP's parameters (N = 2^17, r = 8, p = 1; Password Storage Cheat
// Sheet), from node:crypto, run on libuv's thread pool so the event loop never waits on it.
// Each hash costs 128 MiB and a core for a fraction of a second, so the work that may run at
// once is bounded (passwordWork): a flood of sign-ups queues behind its own slots instead of
// slowing every log-in.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { DomainError } from '../errors.ts';

export const PASSWORD_MIN_LENGTH = 10;
/** Long enough for any passphrase, short enough that hashing stays cheap to refuse. */
export const PASSWORD_MAX_LENGTH = 1024;

const COST = { N: 2 ** 17, r: 8, p: 1 };
const KEY_LENGTH = 32;
// scrypt needs 128 × N × r bytes (128 MiB here); Node's default cap is 32 MiB.
const MAX_MEMORY = 256 * 1024 * 1024;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** Refuses what cannot be a password here, with a message that says what to fix. */
export function checkNewPassword(password: string): void {
  if (password.length === 0) throw new DomainError('invalid_input', 'password: enter a password');
  if ([...password].length < PASSWORD_MIN_LENGTH) {
    throw new DomainError('invalid_input', `password: use at least ${PASSWORD_MIN_LENGTH} characters`);
  }
  if (password.length > PASSWORD_MAX_LENGTH) {
    throw new DomainError('invalid_input', `password: use at most ${PASSWORD_MAX_LENGTH} characters`);
  }
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64url: the parameters travel with the hash. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, { ...COST, maxmem: MAX_MEMORY });
  return `scrypt$${COST.N}$${COST.r}$${COST.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  if (password.length > PASSWORD_MAX_LENGTH) return false;
  const key = await scrypt(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p), maxmem: MAX_MEMORY });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

let decoy: Promise<string> | undefined;

/**
 * A hash of a random password, verified when the email is unknown or has no password, so a
 * failed log-in takes the same path and the same time whether or not the account exists.
 */
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}

/** Hashing and checking passwords under a bound on the scrypt work running at once. */
export interface PasswordWork {
  /** A new hash (sign-up, reset, change): waits for a slot after every log-in waiting. */
  hash(password: string): Promise<string>;
  /** Checks a password (log-in): served before any hash waiting. */
  verify(password: string, stored: string): Promise<boolean>;
}

export interface PasswordWorkOptions {
  /** scrypt computations at once; new hashes take at most `slots − 1` of them (all, when 1). */
  slots: number;
  /** Computations that may wait; past it the request is refused (503) rather than queued. */
  queueLimit: number;
}

/**
 * Two queues over `slots`: log-ins first, and new hashes never holding the last slot, so a
 * sign-up flood costs a log-in at most one hash's time on a free slot, never the whole queue.
 */
export function passwordWork(options: PasswordWorkOptions): PasswordWork {
  const slots = Math.max(1, options.slots);
  const hashSlots = Math.max(1, slots - 1);
  let running = 0;
  let hashing = 0;
  const verifies: (() => void)[] = [];
  const hashes: (() => void)[] = [];

  function take(kind: 'verify' | 'hash'): void {
    running++;
    if (kind === 'hash') hashing++;
  }

  /** Hands freed slots to the waiting, log-ins first; a waiter wakes with its slot taken. */
  function next(): void {
    while (running < slots) {
      if (verifies.length > 0) {
        take('verify');
        verifies.shift()?.();
      } else if (hashes.length > 0 && hashing < hashSlots) {
        take('hash');
        hashes.shift()?.();
      } else return;
    }
  }

  async function run<T>(kind: 'verify' | 'hash', work: () => Promise<T>): Promise<T> {
    const free = running < slots && (kind === 'verify' ? verifies.length === 0 : hashing < hashSlots && verifies.length + hashes.length === 0);
    if (free) take(kind);
    else {
      if (verifies.length + hashes.length >= options.queueLimit) {
        throw new DomainError('unavailable', 'the service is busy checking passwords; retry shortly', { retryAfterSeconds: 2 });
      }
      await new Promise<void>((resolve) => (kind === 'verify' ? verifies : hashes).push(resolve));
    }
    try {
      return await work();
    } finally {
      running--;
      if (kind === 'hash') hashing--;
      next();
    }
  }

  return {
    hash: (password) => run('hash', () => hashPassword(password)),
    verify: (password, stored) => run('verify', () => verifyPassword(password, stored)),
  };
}
