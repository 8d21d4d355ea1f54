import { describe, expect, it } from "vitest";
import { LeaseTable } from "../../src/store/local-queue.ts";

describe("LeaseTable", () => {
  it("follows a fake clock: lapse, renewal and takeover", () => {
    let now = 1_000;
    const leases = new LeaseTable(() => now);
    const first = leases.acquire("job", 100);
    expect(first).toEqual(expect.any(String));
    expect(leases.acquire("job", 100)).toBeUndefined();
    now += 99;
    expect(leases.renew("job", first ?? "", 100)).toBe(true);
    now += 99;
    expect(leases.acquire("job", 100)).toBeUndefined();
    now += 1;
    expect(leases.renew("job", first ?? "", 100)).toBe(false);
    const second = leases.acquire("job", 100);
    expect(second).toEqual(expect.any(String));
    leases.release("job", first ?? "");
    expect(leases.acquire("job", 100)).toBeUndefined();
    leases.release("job", second ?? "");
    expect(leases.acquire("job", 100)).toEqual(expect.any(String));
  });

  it("drops lapsed leases once it grows large", () => {
    let now = 0;
    const leases = new LeaseTable(() => now);
    for (let i = 0; i < 2000; i += 1) leases.acquire(`job-${i}`, 10);
    now = 100;
    // Pruning must not touch live leases: this one is taken right after the sweep.
    expect(leases.acquire("job-0", 10)).toEqual(expect.any(String));
    expect(leases.acquire("job-0", 10)).toBeUndefined();
  });
});
