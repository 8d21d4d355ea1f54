import { type Catalog, en, type MessageKey } from "./en.ts";
import { vi } from "./vi.ts";

export type Locale = "en" | "vi";

export const LOCALES: readonly Locale[] = ["en", "vi"];

const CATALOGS: Record<Locale, Catalog> = { en, vi };

/** The `{placeholders}` of a sentence, as a union of their names. */
type Placeholders<S extends string> = S extends `${string}{${infer Name}}${infer Rest}`
  ? Name | Placeholders<Rest>
  : never;

/** The values a key's English sentence asks for; `never` when it takes none. */
export type ParamsOf<K extends MessageKey> = Placeholders<(typeof en)[K]>;

/** Keys whose sentence takes no values, such as labels. */
export type PlainKey = {
  [K in MessageKey]: [ParamsOf<K>] extends [never] ? K : never;
}[MessageKey];

/** `t`'s optional third argument: required exactly when the sentence has placeholders. */
type ParamsArg<K extends MessageKey> = [ParamsOf<K>] extends [never]
  ? []
  : [params: Record<ParamsOf<K>, string | number>];

/** Values are inserted as given: callers escape them for the field they write to. */
export function t<K extends MessageKey>(locale: Locale, key: K, ...args: ParamsArg<K>): string {
  const template = CATALOGS[locale][key];
  const params: Record<string, string | number> = args[0] ?? {};
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(params, name) ? String(params[name]) : whole,
  );
}

export function localeOf(slackLocale?: string): Locale {
  return /^vi(?:[-_]|$)/i.test(slackLocale?.trim() ?? "") ? "vi" : "en";
}
