import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deferRequire } from "../../src/util/defer-require.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

/** A CommonJS module that counts its loads in a global, compiled as TypeScript compiles ES modules. */
const MODULE = `
  "use strict";
  Object.defineProperty(exports, "__esModule", { value: true });
  globalThis.__deferLoads = (globalThis.__deferLoads ?? 0) + 1;
  class Thing { hello() { return "hi"; } }
  exports.default = Thing;
  exports.answer = 42;
`;
const loads = () => (globalThis as { __deferLoads?: number }).__deferLoads ?? 0;

describe("deferRequire", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let path: string;
  let req: NodeJS.Require;

  beforeEach(async () => {
    temp = await makeTempDir("mn-defer-");
    path = join(temp.dir, "thing.js");
    await writeFile(path, MODULE);
    req = createRequire(join(temp.dir, "index.js"));
    (globalThis as { __deferLoads?: number }).__deferLoads = 0;
  });
  afterEach(async () => {
    delete req.cache[path];
    await temp.cleanup();
  });

  it("loads the module at the first use of an export, not when it is required", () => {
    deferRequire(req, "./thing.js", true);
    const mod = req("./thing.js") as { default: new () => { hello(): string }; answer: number };
    // What TypeScript's __importDefault asks does not load it either.
    expect((mod as { __esModule?: boolean }).__esModule).toBe(true);
    expect(loads()).toBe(0);
    expect(new mod.default().hello()).toBe("hi");
    expect(mod.answer).toBe(42);
    expect(loads()).toBe(1);
    // From then on the module itself is in require's cache.
    expect((req("./thing.js") as { answer: number }).answer).toBe(42);
    expect(req.cache[path]?.exports).not.toBe(mod);
    expect(loads()).toBe(1);
  });

  it("leaves a module already loaded as it is", () => {
    const real = req("./thing.js");
    deferRequire(req, "./thing.js", true);
    expect(req("./thing.js")).toBe(real);
    expect(loads()).toBe(1);
  });
});
