import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What the caller of a Web API call says of it that the client cannot pass on to its
 * `fetch` (`@slack/web-api` takes no per-call options): a `person` is looking at it (it
 * goes as an interactive call: never paced, never behind background work), and when waiting
 * for it stops making sense (`yieldSignal`: a newer state took its place). Its waits for
 * budget and its re-sends end then; a request already sent stays sent.
 */
export interface CallScope {
  person: boolean;
  yieldSignal?: AbortSignal;
}

const scope = new AsyncLocalStorage<CallScope>();

/** Runs `work`, whose Web API calls are made as `call` says. */
export function inCallScope<T>(call: CallScope, work: () => Promise<T>): Promise<T> {
  return scope.run(call, work);
}

/** What the caller of the call being sent said of it, if anything. */
export function callScope(): CallScope | undefined {
  return scope.getStore();
}
