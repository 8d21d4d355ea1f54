import { readFileSync } from "node:fs";

/**
 * Times `send` (a request to the app at `appUrl`, which runs in this process) with a `/healthz`
 * sent to the same server in the same instant. On a loaded machine (both cores shared with
 * another suite, say) the app also waits for a CPU: `beyondMs` is what `send` took past the
 * longer of the probe and this process's wait for a CPU meanwhile, the app's own work on it,
 * which a bound taken from Slack's (3 s for an answer) can hold to under any load.
 */
export async function timedBeside<T>(appUrl: string, send: () => Promise<T>) {
  const started = Date.now();
  const waitedBefore = cpuWaitMs();
  const probe = fetch(new URL("/healthz", appUrl)).then(async (res) => {
    await res.arrayBuffer();
    return Date.now() - started;
  });
  const answer = await send();
  const ms = Date.now() - started;
  const waitedMs = cpuWaitMs() - waitedBefore;
  return { answer, ms, beyondMs: ms - Math.max(await probe, waitedMs), waitedMs, started };
}

/**
 * How long this process's main thread, where the app runs, has been ready to run and waited for a
 * CPU: the second field of Linux's /proc/self/schedstat, in ns. 0 where there is none.
 */
function cpuWaitMs(): number {
  try {
    return Number(readFileSync("/proc/self/schedstat", "utf8").split(" ")[1]) / 1e6 || 0;
  } catch {
    return 0;
  }
}
