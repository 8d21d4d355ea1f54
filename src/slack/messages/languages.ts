import type { Locale } from "./translate.ts";

/**
 * Languages offered for `languageHint`, as ISO 639-1 codes: Vietnamese and English first
 * (most users), then the region's neighbours, then widely spoken ones. The Note Service
 * takes any ISO 639-1 code; a channel set to one not listed here still shows it.
 */
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

/**
 * A language's name in the reader's language ("Japanese", "Tiếng Nhật"), from the ICU data
 * Node ships with, so the catalog need not list 184 names twice. Falls back to the code.
 */
export function languageName(locale: Locale, code: string): string {
  try {
    const name = new Intl.DisplayNames([locale], { type: "language", fallback: "none" }).of(code);
    return name === undefined || name === "" ? code : name;
  } catch {
    return code;
  }
}
