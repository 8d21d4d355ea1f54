import { afterAll, beforeAll, beforeEach } from "vitest";

/**
 * Something started before the calling file's (or `describe`'s) tests and stopped after
 * them, optionally reset before each. The value stands for it once started; reading it
 * earlier throws.
 */
export function perFile<T extends object>(
  what: string,
  hooks: { start: () => Promise<T>; stop: (it: T) => unknown; reset?: (it: T) => unknown },
): T {
  let current: T | undefined;
  beforeAll(async () => {
    current = await hooks.start();
  });
  afterAll(() => (current === undefined ? undefined : hooks.stop(current)));
  if (hooks.reset !== undefined) {
    const reset = hooks.reset;
    beforeEach(() => (current === undefined ? undefined : reset(current)));
  }
  return new Proxy({} as T, {
    get(_, key) {
      if (current === undefined) throw new Error(`${what} is not started yet`);
      return Reflect.get(current, key, current);
    },
  });
}
