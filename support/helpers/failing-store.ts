import type { Store } from "../../src/store/index.ts";

/** The store methods that write: what fails while SQLite cannot write (a full disk). */
const WRITES = new Set<string>([
  "set",
  "delete",
  "touch",
  "claim",
  "claimBriefly",
  "releaseClaim",
  "acquireLease",
  "renewLease",
  "releaseLease",
  "addActive",
  "removeActive",
  "schedule",
  "unschedule",
  "claimDue",
  "spreadOverdue",
  "addMember",
  "removeMember",
  "deleteSet",
  "pushIndex",
  "deleteIndex",
  "scrub",
]);

/**
 * Never failed: the process must still be able to answer probes and stop, and the store's
 * clock (`now`, synchronous: kept by the process, not asked of the backend) always reads.
 */
const SPARED = new Set<string>(["ping", "close", "now"]);

/**
 * A switch in front of a real store: while `mode` is `all`, every call fails (Redis down);
 * while `writes`, only the calls that write (SQLite unable to write); while `some`, the
 * methods named in `methods`; `none` lets all through. Counts the calls it failed.
 */
export class StoreFault {
  mode: "none" | "all" | "writes" | "some" = "none";
  methods = new Set<string>();
  failed = 0;
  readonly #decide: (() => StoreFault["mode"]) | undefined;

  /** `decide`, when given, says the mode at each call instead of `mode` (another process). */
  constructor(decide?: () => StoreFault["mode"]) {
    this.#decide = decide;
  }

  /** The store behind this switch. */
  wrap(store: Store): Store {
    return new Proxy(store, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== "function" || typeof property !== "string") return value;
        return (...args: unknown[]) => {
          if (this.#fails(property)) {
            this.failed += 1;
            return Promise.reject(new Error(`injected store failure: ${property}`));
          }
          return value.apply(target, args);
        };
      },
    });
  }

  #fails(method: string): boolean {
    const mode = this.#decide?.() ?? this.mode;
    if (mode === "none" || SPARED.has(method)) return false;
    if (mode === "some") return this.methods.has(method);
    return mode === "all" || WRITES.has(method);
  }
}
