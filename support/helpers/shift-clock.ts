/**
 * A preload (`node --import support/helpers/shift-clock.ts src/main.ts`) that moves the wall
 * clock of the process it runs in, as an operator setting the host's clock or NTP stepping
 * it would: `Date.now()`, `new Date()` and `Date()` read the real time plus an offset in
 * milliseconds, read from the file named by SHIFT_CLOCK_FILE at start and again on each
 * SIGUSR2. Monotonic time (`performance.now()`, `process.hrtime`) does not move, as on a
 * real host. Timers are not touched: they run on the monotonic clock in Node.
 */
import { readFileSync } from "node:fs";

const file = process.env.SHIFT_CLOCK_FILE ?? "";
let offsetMs = 0;

function readOffset(): void {
  if (file === "") return;
  try {
    const value = Number(readFileSync(file, "utf8").trim());
    offsetMs = Number.isFinite(value) ? value : 0;
  } catch {
    offsetMs = 0;
  }
}

const RealDate = Date;
const realNow = RealDate.now.bind(RealDate);
const shiftedNow = () => realNow() + offsetMs;

globalThis.Date = new Proxy(RealDate, {
  construct(target, args: unknown[], newTarget) {
    const shifted = args.length === 0 ? [shiftedNow()] : args;
    return Reflect.construct(target, shifted, newTarget) as object;
  },
  apply() {
    return new RealDate(shiftedNow()).toString();
  },
  get(target, property, receiver) {
    if (property === "now") return shiftedNow;
    return Reflect.get(target, property, receiver) as unknown;
  },
});

readOffset();
process.on("SIGUSR2", readOffset);
