import { describe, expect, it } from "vitest";
import { BriefClaims } from "../../src/store/local-queue.ts";

describe("BriefClaims", () => {
  it("claims a key once until it expires, on a fake clock", () => {
    let now = 1_000;
    const claims = new BriefClaims(() => now);
    expect(claims.claim("a", 100)).toBe(true);
    expect(claims.claim("a", 100)).toBe(false);
    now += 99;
    expect(claims.claim("a", 100)).toBe(false);
    now += 1;
    expect(claims.claim("a", 100)).toBe(true);
    expect(claims.claim("b", 100)).toBe(true);
  });

  it("stays bounded under a steady stream of keys, and never forgets a live one", () => {
    let now = 0;
    const claims = new BriefClaims(() => now);
    let largest = 0;
    let refused = 0;
    // 10 keys a second for an hour, each kept 5 minutes: 3,000 live at most.
    for (let i = 0; i < 36_000; i += 1) {
      now = i * 100;
      if (!claims.claim(`sig-${i}`, 300_000)) refused += 1;
      largest = Math.max(largest, claims.size);
    }
    expect(refused).toBe(0);
    expect(largest).toBeLessThanOrEqual(2 * 3_001);
    // The key claimed 4 minutes ago is still refused; one from 6 minutes ago is free again.
    expect(claims.claim(`sig-${35_999 - 2_400}`, 300_000)).toBe(false);
    expect(claims.claim(`sig-${35_999 - 3_600}`, 300_000)).toBe(true);
  });
});
