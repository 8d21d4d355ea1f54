import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Test files share their worker's module cache instead of importing the app afresh each
    // (a third of the suite's time went to imports). Tests keep no state in modules: every
    // stack, store and fake is created per file and closed in its afterAll.
    isolate: false,
    // More files than cores: most of the suite waits on sockets, child processes and
    // Slack-like rate limits rather than computing, so a third worker fills the waits
    // (measured on 2 cores: 139 s with 2 workers, 91 s with 3, every test passing).
    maxWorkers: 3,
    // The 50-odd child processes (bots, crash workers, emulators) reuse Node's compile cache
    // (support/helpers/child-env.ts passes it on).
    env: { NODE_COMPILE_CACHE: resolve("node_modules/.cache/node-compile-cache") },
  },
});
