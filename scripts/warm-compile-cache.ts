/**
 * Fills Node's compile cache (the folder in NODE_COMPILE_CACHE) with every module of src/, so
 * the bot's next start finds its TypeScript already stripped and compiled: without the cache,
 * Node loads its TypeScript stripper (amaro, ≈19 MB of RSS that stays for the life of the
 * process) on every start. `npm start` fills the cache itself on a first start; the Docker
 * image runs this at build time, since its code folder is not the app user's to write.
 *
 *   NODE_COMPILE_CACHE=node_modules/.cache/node-compile-cache node scripts/warm-compile-cache.ts
 *
 * The cache is kept per Node version and set of V8 flags (`--optimize-for-size` makes a cache
 * of its own): run this with the flags the bot runs with, as the Dockerfile does; the bot is
 * then started with the same flags, and the health probe, as the image runs it, with none.
 * Each entry is keyed by its file's content: an entry that no longer matches is compiled
 * again, and a cache that cannot be read or written only costs the stripper.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { flushCompileCache, getCompileCacheDir } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));
/** Entry points: importing them would start the bot or probe it. */
const ENTRIES = new Set(["main.ts", "healthcheck.ts"]);

const CACHE = process.env.NODE_COMPILE_CACHE;
if (CACHE === undefined || getCompileCacheDir() === undefined) {
  process.stderr.write(
    "NODE_COMPILE_CACHE is not set (or the folder cannot be made): nothing to warm\n",
  );
  process.exit(1);
}
const modules = readdirSync(SRC, { recursive: true, encoding: "utf8" })
  .filter((path) => path.endsWith(".ts") && !ENTRIES.has(path))
  .sort();
for (const path of modules) await import(pathToFileURL(join(SRC, path)).href);
flushCompileCache();
// The entry points run in a process of their own with no configuration: each stops at its
// first line of work (the configuration check), after Node has compiled it, and its exit
// writes the cache. The bot under this process's flags; the probe under none, as the image's
// HEALTHCHECK runs it.
const FLAGS: Record<string, readonly string[]> = {
  "main.ts": process.execArgv,
  "healthcheck.ts": [],
};
for (const entry of ENTRIES) {
  spawnSync(process.execPath, [...(FLAGS[entry] ?? []), join(SRC, entry)], {
    // PORT 1: the health probe finds nothing listening there, whatever runs on this machine.
    env: { PATH: process.env.PATH ?? "", PORT: "1", NODE_COMPILE_CACHE: CACHE },
    stdio: "ignore",
    timeout: 30_000,
  });
}
process.stdout.write(
  `compile cache: ${modules.length + ENTRIES.size} modules of ${relative(process.cwd(), SRC) || "."} in ${getCompileCacheDir()}\n`,
);
