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
