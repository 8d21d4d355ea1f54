import { rm, writeFile } from "node:fs/promises";
import type { FaultWorld } from "./fault-world.ts";

/**
 * Turns the bot's store switch (a world started with `storeSwitch`): `writes` fails every
 * call that writes (SQLite unable to write), `all` every call, `none` none. The bot reads it
 * at each store call.
 */
export async function setStoreFault(world: FaultWorld, mode: "writes" | "all" | "none") {
  if (mode === "none") await rm(world.storeFlag, { force: true });
  else await writeFile(world.storeFlag, mode);
}

/**
 * Moves the bot's wall clock (a world started with `movableClock`) to `offsetMs` from the
 * real time, as setting the host's clock would; its monotonic clock does not move.
 */
export async function shiftClock(world: FaultWorld, offsetMs: number): Promise<void> {
  await writeFile(world.clockFile, String(offsetMs));
  world.bot.child.kill("SIGUSR2");
}

/** Runs `during` while a fault lasts `ms`; resolves with when it ended (`performance.now()`). */
export async function holdFault(
  ms: number,
  during: (signal: AbortSignal) => Promise<void>,
): Promise<void> {
  const ended = AbortSignal.timeout(ms);
  await Promise.all([
    during(ended),
    new Promise<void>((resolve) => ended.addEventListener("abort", () => resolve())),
  ]);
}
