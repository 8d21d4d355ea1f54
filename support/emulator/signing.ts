import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export interface Signer {
  /** Returns `path?expires=…&sig=…` for a link valid until `expires` (epoch ms). */
  signPath(path: string, expires: number): string;
  /** Checks the `expires` and `sig` query parameters of a request to `path`. */
  verify(path: string, query: URLSearchParams, now: number): "ok" | "bad-signature" | "expired";
}

/**
 * Creates a signer for result-origin links with a random per-emulator secret, so a link from
 * one emulator (or a hand-edited one) is refused.
 */
export function createSigner(secret: Buffer = randomBytes(32)): Signer {
  const mac = (path: string, expires: string): Buffer =>
    createHmac("sha256", secret).update(`${path}\n${expires}`).digest();

  return {
    signPath(path, expires) {
      const sig = mac(path, String(expires)).toString("hex");
      return `${path}?expires=${expires}&sig=${sig}`;
    },
    verify(path, query, now) {
      const expires = query.get("expires");
      const sig = query.get("sig");
      if (expires === null || sig === null || !/^\d+$/.test(expires)) return "bad-signature";
      if (!/^[0-9a-f]{64}$/.test(sig)) return "bad-signature";
      if (!timingSafeEqual(Buffer.from(sig, "hex"), mac(path, expires))) return "bad-signature";
      // Expiry is checked after the signature so a forged `expires` cannot revive a link.
      return now > Number(expires) ? "expired" : "ok";
    },
  };
}
