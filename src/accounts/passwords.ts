// Passwords: scrypt at OWASP's parameters (N = 2^17, r = 8, p = 1; Password Storage Cheat
// Sheet), from node:crypto, run on libuv's thread pool so the event loop never waits on it.
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
