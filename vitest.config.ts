import { resolve } from "node:path";
import type { Plugin } from "vite";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [productionConditions()],
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["support/helpers/seeded-fast-check.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // `expect.poll` ends on the value it waits for; its 1 s default was a wall-clock bound a
    // starved machine missed.
    expect: { poll: { timeout: 10_000 } },
    // Test files share their worker's module cache instead of importing the app afresh each
    // (a third of the suite's time went to imports). Tests keep no state in modules: every
    // stack, store and fake is created per file and closed in its afterAll.
    isolate: false,
    // More files than cores: half the suite waits on sockets, child processes and Slack-like
    // rate limits rather than computing, so extra workers fill the waits (measured on an idle
    // 2-core machine: 139 s with 2 workers, 99–107 s with 3, 92–96 s with 4).
    maxWorkers: 4,
    // A young generation of 64 MB instead of V8's 16: the workers allocate fast (stacks, fakes,
    // JSON on every request) and spent a tenth of their CPU time in scavenges (measured: the
    // suite's CPU time 179–183 s before, 155–162 s after).
    execArgv: ["--max-semi-space-size=64"],
    // The 50-odd child processes (bots, crash workers, emulators) reuse Node's compile cache
    // (support/helpers/child-env.ts passes it on).
    env: { NODE_COMPILE_CACHE: resolve("node_modules/.cache/node-compile-cache") },
  },
});

/**
 * The workers resolve packages as the app does in production: Vitest passes Vite's server
 * conditions to its workers (`--conditions`), and those include "development", which loads
 * micromark's development builds (an assertion on every token, through `devlop`) that the
 * app never runs; the Markdown of every note went through them.
 */
function productionConditions(): Plugin {
  return {
    name: "production-conditions",
    enforce: "post",
    configResolved(config) {
      for (const resolve of [
        config.ssr.resolve,
        ...Object.values(config.environments).map((e) => e.resolve),
      ]) {
        const conditions = resolve?.conditions;
        if (conditions === undefined) continue;
        const kept = conditions.filter(
          (c) => c !== "development|production" && c !== "development",
        );
        conditions.splice(0, conditions.length, ...kept);
      }
    },
  };
}
