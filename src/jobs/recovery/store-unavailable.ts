import type { Store } from "../../store/index.ts";

/**
 * The store failed what the job service asked: nothing was saved. The Slack layer tells this from
 * its own failures, so the person hears the real cause and an upload goes to the journal.
 */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`The store failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "StoreUnavailableError";
  }
}

export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return error instanceof StoreUnavailableError;
}

/** Every failure of this store is a {@link StoreUnavailableError}, whichever backend it is. */
export function markStoreFailures(store: Store): Store {
  const mark = (error: unknown) =>
    isStoreUnavailable(error) ? error : new StoreUnavailableError(error);
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        try {
          const result: unknown = value.apply(target, args);
          return result instanceof Promise
            ? result.catch((error: unknown) => {
                throw mark(error);
              })
            : result;
        } catch (error) {
          throw mark(error);
        }
      };
    },
  });
}
