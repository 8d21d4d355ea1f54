import Module from "node:module";

/**
 * Puts a stand-in for the CommonJS module `id` in require's cache, so a dependency that
 * requires it eagerly loads it only at first use (Bolt's Socket Mode receiver in HTTP mode).
 * `esModule`: answer `__esModule` without loading, as TypeScript's `__importDefault` asks.
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
