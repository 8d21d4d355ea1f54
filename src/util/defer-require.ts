import Module from "node:module";

/**
 * Puts a stand-in for the CommonJS module `id` (resolved by `require`) in require's cache,
 * so that the modules requiring it at their top do not load it: the module itself is loaded
 * at the first use of one of its exports, and replaces the stand-in from then on. For what a
 * dependency requires eagerly but this process may never use (Bolt's Socket Mode receiver in
 * HTTP mode, its OAuth installer without OAuth).
 *
 * `esModule`: the module is compiled from an ES module (`exports.__esModule` is true), which
 * TypeScript's `__importDefault` asks when the module is required: answered without loading.
 * Does nothing when the module is already loaded.
 */
export function deferRequire(require: NodeJS.Require, id: string, esModule: boolean): void {
  const path = require.resolve(id);
  if (require.cache[path] !== undefined) return;
  let real: object | undefined;
  const load = (): object => {
    if (real === undefined) {
      delete require.cache[path];
      real = require(path) as object;
    }
    return real;
  };
  const standIn = new Proxy(
    {},
    {
      get: (_target, key) => (key === "__esModule" && esModule ? true : Reflect.get(load(), key)),
      has: (_target, key) => Reflect.has(load(), key),
      ownKeys: () => Reflect.ownKeys(load()),
      getOwnPropertyDescriptor: (_target, key) => {
        const found = Reflect.getOwnPropertyDescriptor(load(), key);
        // A proxy may not report a property non-configurable that its target lacks.
        return found === undefined ? undefined : { ...found, configurable: true };
      },
    },
  );
  const stub = new Module(path);
  stub.filename = path;
  stub.loaded = true;
  stub.exports = standIn;
  require.cache[path] = stub;
}
