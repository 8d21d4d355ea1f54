import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

/**
 * The fault suite (`npm run test:faults`): the real bot as a child process through Redis,
 * SQLite, Slack, Note Service, disk, signal and clock faults that last 30 s,
 * 60 s and 2 min (FAULT_SCALE shortens them). One file at a time: each runs a bot, Redis or
 * FFmpeg and measures recovery times a neighbour's load would distort on two cores.
 */
export default defineConfig({
  test: {
    include: ["test/faults/**/*.fault.ts"],
    fileParallelism: false,
    testTimeout: 900_000,
    hookTimeout: 60_000,
    env: { NODE_COMPILE_CACHE: resolve("node_modules/.cache/node-compile-cache") },
  },
});
