export { DEFAULT_KEY_PREFIX, openStore } from "./open-store.ts";
export {
  checkTtl,
  type DueClaim,
  INDEX_LIMIT,
  NAMESPACES,
  type Namespace,
  type OpenStoreOptions,
  type Store,
  StoreClosedError,
  type StoreKind,
} from "./store.ts";
