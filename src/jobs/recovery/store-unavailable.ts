import type { Store } from "../../store/index.ts";

/**
 * The store did not do what the job service asked (Redis unreachable or too slow, SQLite
 * unable to write): what a person asked for was not saved. The Slack layer tells these
 * apart from its own failures so the person hears the real cause, and keeps an upload in
 * its journal instead of losing it. The store's own error is the `cause`.
 */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`The store failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "StoreUnavailableError";
  }
}

/** Whether `error` says the store failed (see {@link StoreUnavailableError}). */
export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return error instanceof StoreUnavailableError;
}

/**
 * The same store, whose every failure is a {@link StoreUnavailableError}: the job service
 * runs over it, so whatever it throws from the store says so, whichever backend it is.
 */
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
