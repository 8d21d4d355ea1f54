/**
 * Times `send` (a request to the app at `appUrl`) with a `/healthz` sent to the same server
 * in the same instant. On a loaded machine (both cores shared with another suite, say) both
 * wait their turn alike; `beyondMs`, what `send` took past the probe, is the app's own work
 * on it, which a bound taken from Slack's (3 s for an answer) can hold to under any load.
 */
export async function timedBeside<T>(appUrl: string, send: () => Promise<T>) {
  const started = Date.now();
  const probe = fetch(new URL("/healthz", appUrl)).then(async (res) => {
    await res.arrayBuffer();
    return Date.now() - started;
  });
  const answer = await send();
  const ms = Date.now() - started;
  return { answer, ms, beyondMs: ms - (await probe), started };
}
