import { randomBytes } from 'node:crypto';

/** A fresh AES-256 key in base64, as `openssl rand -base64 32` prints it. */
export const newKey = (): string => randomBytes(32).toString('base64');

/** A key ring JSON value with `ids`, the first one primary. */
export function keyRing(...ids: string[]): { primary: string; keys: { id: string; key: string }[] } {
  return { primary: ids[0]!, keys: ids.map((id) => ({ id, key: newKey() })) };
}
