import { createPublicKey, type KeyObject } from 'node:crypto';

/** Smallest RSA modulus accepted for payload encryption (contract part 3). */
export const MIN_RSA_BITS = 2048;

/**
 * Why `publicKey` cannot encrypt payloads: it must be base64 DER of an RSA public key (SPKI or
 * PKCS#1, no PEM lines) of at least 2048 bits. `''` (no key) passes.
 */
export function publicKeyProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (value === '') return undefined;
  const key = parsePublicKey(value);
  if (!key) return 'must be base64 DER of an RSA public key (no PEM lines)';
  if (key.asymmetricKeyType !== 'rsa') return 'must be an RSA public key';
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  return bits >= MIN_RSA_BITS ? undefined : `must be an RSA key of at least ${MIN_RSA_BITS} bits (got ${bits})`;
}

/** The key of base64 DER (SPKI or PKCS#1), or `undefined` when it is none. */
export function parsePublicKey(value: string): KeyObject | undefined {
  if (value.length > 10_000 || !/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return undefined;
  const der = Buffer.from(value, 'base64');
  for (const type of ['spki', 'pkcs1'] as const) {
    try {
      return createPublicKey({ key: der, format: 'der', type });
    } catch {
      // try the next encoding
    }
  }
  return undefined;
}
