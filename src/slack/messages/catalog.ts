import { modalsEn, modalsVi } from "./modals.ts";
import { refusalsEn, refusalsVi } from "./refusals.ts";
import { repliesEn, repliesVi } from "./replies.ts";
import { reviewEn, reviewVi } from "./review.ts";
import { threadEn, threadVi } from "./thread.ts";
import { waysInEn, waysInVi } from "./ways-in.ts";

/**
 * The reference catalog; `{name}` is filled in by `t`. Mrkdwn text is written as mrkdwn (the
 * builders escape the values). Modal titles and buttons within 24 characters, button labels 75.
 */
export const en = {
  ...threadEn,
  ...reviewEn,
  ...waysInEn,
  ...modalsEn,
  ...repliesEn,
  ...refusalsEn,
} as const;

export type MessageKey = keyof typeof en;

/** A catalog in another language: every English key, each a string. */
export type Catalog = { readonly [K in MessageKey]: string };

/** Typed as `Catalog`: a missing or extra key does not compile; the tests compare placeholders. */
export const vi: Catalog = {
  ...threadVi,
  ...reviewVi,
  ...waysInVi,
  ...modalsVi,
  ...repliesVi,
  ...refusalsVi,
};

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

/** The largest first; under a minute is "just now". */
const UNITS = [
  ["days", 86_400_000],
  ["hours", 3_600_000],
  ["minutes", 60_000],
] as const;

/** How long ago `then` was, from `now`, as a short phrase ("5 minutes ago", "vừa xong"). */
export function timeAgo(locale: Locale, then: number, now: number): string {
  const elapsed = Math.max(0, now - then);
  for (const [unit, ms] of UNITS) {
    const count = Math.floor(elapsed / ms);
    if (count === 1) return t(locale, `time.${unit}_ago.one`);
    if (count > 1) return t(locale, `time.${unit}_ago.other`, { count });
  }
  return t(locale, "time.just_now");
}

/** Vietnamese and English first, then the region's; the Note Service takes any ISO 639-1 code. */
export const LANGUAGE_CODES: readonly string[] =
  "vi en zh ja ko th id ms km lo tl hi fr de es pt it nl ru uk pl tr ar sv".split(" ");

/** From the ICU data Node ships with, so the catalog need not list 184 names twice. */
export function languageName(locale: Locale, code: string): string {
  try {
    const name = new Intl.DisplayNames([locale], { type: "language", fallback: "none" }).of(code);
    return name === undefined || name === "" ? code : name;
  } catch {
    return code;
  }
}
