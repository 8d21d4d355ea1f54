/**
 * How a checkout's `npm start` runs the bot, read from its package.json, so that benchmarks
 * measure the app (and the job layer, where a bench runs it in-process) as production runs
 * it: the variables the script sets (`VAR=${VAR:-default}` or `VAR=value` before `node`) and
 * Node's own options after `node` (V8 flags such as `--optimize-for-size`, which Node refuses
 * in NODE_OPTIONS: they must be arguments of `node`). `--env-file…` options are left out: a
 * benchmark gives its processes their environment itself.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";

export interface StartScript {
  /** The variables the script sets; relative paths are resolved against the checkout. */
  env: Record<string, string>;
  /** Node's options, in order, to put before the entry point. */
  nodeArgs: string[];
}

/** Variables whose value is a path (relative to the folder `npm start` runs in). */
const PATH_VARIABLES = new Set(["NODE_COMPILE_CACHE"]);

/** Parses a start script such as `A=${A:-x} node --flag --env-file-if-exists=.env src/main.ts`. */
export function parseStartScript(script: string, root: string): StartScript {
  const env: Record<string, string> = {};
  const words = script.trim().split(/\s+/);
  let i = 0;
  for (; i < words.length; i++) {
    const m = /^([A-Z_][A-Z0-9_]*)=(?:\$\{[A-Z_][A-Z0-9_]*:-([^}]*)\}|(.*))$/.exec(words[i] ?? "");
    if (m === null) break;
    const [, name, fallback, value] = m;
    if (name === undefined) continue;
    const text = fallback ?? value ?? "";
    env[name] = PATH_VARIABLES.has(name) && !isAbsolute(text) ? join(root, text) : text;
  }
  const nodeArgs: string[] = [];
  if (words[i] === "node") {
    for (const word of words.slice(i + 1)) {
      if (!word.startsWith("--")) break;
      if (!word.startsWith("--env-file")) nodeArgs.push(word);
    }
  }
  return { env, nodeArgs };
}

/** The `npm start` of the checkout at `root`. */
export function startScriptOf(root: string): StartScript {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    scripts?: { start?: string };
  };
  return parseStartScript(pkg.scripts?.start ?? "", root);
}
