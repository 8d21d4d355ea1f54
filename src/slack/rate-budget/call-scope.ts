import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What a caller says of a call that the client cannot pass to its `fetch` (it takes no per-call
 * options): a `person` looks at it (sent as interactive), and `yieldSignal` ends its waits.
 */
export interface CallScope {
  person: boolean;
  yieldSignal?: AbortSignal;
}

const scope = new AsyncLocalStorage<CallScope>();

export function inCallScope<T>(call: CallScope, work: () => Promise<T>): Promise<T> {
  return scope.run(call, work);
}

export function callScope(): CallScope | undefined {
  return scope.getStore();
}
