export { type Catalog, en, type MessageKey } from "./en.ts";
export { LANGUAGE_CODES, languageName } from "./languages.ts";
export { timeAgo } from "./time-phrases.ts";
export { LOCALES, type Locale, localeOf, type ParamsOf, type PlainKey, t } from "./translate.ts";
export { vi } from "./vi.ts";
