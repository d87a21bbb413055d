import { randomInt } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
export const CONVERSION_ID = /^vec_[a-z0-9]{1,12}_[a-z0-9]{6}$/;

/** `vec_<time in base 36>_<6 random [a-z0-9]>`: time-ordered, and unique with the table's key. */
export function newConversionId(now = Date.now()): string {
  let suffix = '';
  for (let i = 0; i < 6; i += 1) suffix += ALPHABET[randomInt(ALPHABET.length)];
  return `vec_${now.toString(36)}_${suffix}`;
}
