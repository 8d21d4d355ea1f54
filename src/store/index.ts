export { DEFAULT_KEY_PREFIX, openStore, sqlitePathOf } from "./open-store.ts";
export {
  checkTtl,
  type DueClaim,
  type EpochCheck,
  INDEX_LIMIT,
  NAMESPACES,
  type Namespace,
  type OpenStoreOptions,
  type Store,
  StoreClosedError,
  StoreError,
  type StoreKind,
} from "./store.ts";
