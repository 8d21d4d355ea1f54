/**
 * The app as `src/main.ts` starts it, with its store behind a switch another process
 * turns: while the file named by STORE_FAULT_FILE exists, every store call fails (Redis
 * down), or only the calls that write when the file says `writes` (a disk that cannot be
 * written). For tests that kill the process mid-outage, and the fault suite.
 */
import { existsSync, readFileSync } from "node:fs";
import { createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { StoreFault } from "./failing-store.ts";

const flag = process.env.STORE_FAULT_FILE ?? "";
/** The switch's position, read at each store call (a file another process writes). */
function mode(): StoreFault["mode"] {
  if (flag === "" || !existsSync(flag)) return "none";
  try {
    return readFileSync(flag, "utf8").trim() === "writes" ? "writes" : "all";
  } catch {
    // Deleted between the two calls: the switch was just turned off.
    return "none";
  }
}
const fault = new StoreFault(mode);
process.umask(0o077);
const app = await createApp(loadConfig(process.env), { wrapStore: (store) => fault.wrap(store) });
await app.start();
