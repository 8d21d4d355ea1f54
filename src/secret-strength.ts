/** Checks of the secrets a person makes up (the token key, the state secret); random ones pass. */

/** Fewer different byte values than this in 32 bytes is not random (about 30 expected). */
const MIN_DISTINCT_BYTES = 16;

/** The shortest state secret: 32 characters, as `openssl rand -base64 32` gives 44. */
export const MIN_STATE_SECRET_LENGTH = 32;

/** Why `key` (raw bytes) is not a random key, or undefined when nothing says so. */
export function weakKeyReason(key: Uint8Array): string | undefined {
  const bytes = [...key];
  const distinct = new Set(bytes).size;
  if (distinct === 1) return "is one byte repeated";
  if (distinct < MIN_DISTINCT_BYTES) return "has too few different bytes to be random";
  if (bytes.every((b) => b >= 0x20 && b <= 0x7e)) return "is text, not random bytes";
  const step = ((bytes[1] ?? 0) - (bytes[0] ?? 0) + 256) % 256;
  if (bytes.every((b, i) => i === 0 || (b - (bytes[i - 1] ?? 0) + 256) % 256 === step)) {
    return "counts up or down, not random bytes";
  }
  return undefined;
}

/** Why `secret` is too weak to sign with, or undefined. */
export function weakSecretReason(secret: string): string | undefined {
  if (secret.length < MIN_STATE_SECRET_LENGTH) {
    const length = `${secret.length} character${secret.length === 1 ? "" : "s"}`;
    return `is ${length}, under the ${MIN_STATE_SECRET_LENGTH} it needs`;
  }
  if (new Set(secret).size === 1) return "is one character repeated";
  return undefined;
}

/** How to make a good one: the end of every refusal's sentence. */
export const MAKE_ONE = "make a good one with `openssl rand -base64 32`.";
