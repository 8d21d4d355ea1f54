import type { Locale } from "./translate.ts";

/** Vietnamese and English first, then the region's; the Note Service takes any ISO 639-1 code. */
export const LANGUAGE_CODES = [
  "vi",
  "en",
  "zh",
  "ja",
  "ko",
  "th",
  "id",
  "ms",
  "km",
  "lo",
  "tl",
  "hi",
  "fr",
  "de",
  "es",
  "pt",
  "it",
  "nl",
  "ru",
  "uk",
  "pl",
  "tr",
  "ar",
  "sv",
] as const;

/** From the ICU data Node ships with, so the catalog need not list 184 names twice. */
export function languageName(locale: Locale, code: string): string {
  try {
    const name = new Intl.DisplayNames([locale], { type: "language", fallback: "none" }).of(code);
    return name === undefined || name === "" ? code : name;
  } catch {
    return code;
  }
}
