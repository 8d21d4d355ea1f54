/**
 * The app as `src/main.ts` starts it, with its store behind a switch another process
 * turns: while the file named by STORE_FAULT_FILE exists, every store call fails (Redis
 * down, a disk that cannot be written). For tests that kill the process mid-outage.
 */
import { existsSync } from "node:fs";
import { createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { StoreFault } from "./failing-store.ts";

const flag = process.env.STORE_FAULT_FILE ?? "";
const fault = new StoreFault(() => (flag !== "" && existsSync(flag) ? "all" : "none"));
process.umask(0o077);
const app = await createApp(loadConfig(process.env), { wrapStore: (store) => fault.wrap(store) });
await app.start();
