import type { PlainTextOption, StaticSelect } from "@slack/types";
import { ISO_639_1_CODES } from "../../text/index.ts";
import { optional } from "../../util/optional.ts";
import { LANGUAGE_CODES, type Locale, languageName, t } from "../messages/catalog.ts";
import { option } from "./block-kit.ts";

export const AUTO_LANGUAGE = "auto";

/** Auto-detect, then the listed languages; a current code not listed is added to stay selected. */
export function languageSelect(actionId: string, locale: Locale, current?: string): StaticSelect {
  const codes: string[] = [...LANGUAGE_CODES];
  if (current !== undefined && ISO_639_1_CODES.has(current) && !codes.includes(current)) {
    codes.push(current);
  }
  const options: PlainTextOption[] = [
    option(t(locale, "language.auto"), AUTO_LANGUAGE),
    ...codes.map((code) => option(`${languageName(locale, code)} (${code})`, code)),
  ];
  const initial = options.find((o) => o.value === (current ?? AUTO_LANGUAGE));
  return {
    type: "static_select",
    action_id: actionId,
    options,
    ...optional("initial_option", initial),
  };
}

/** "invalid" when the value is not an ISO 639-1 code (a forged or stale form). */
export function readLanguage(value: string | undefined): { code?: string } | "invalid" {
  if (value === undefined || value === AUTO_LANGUAGE) return {};
  return ISO_639_1_CODES.has(value) ? { code: value } : "invalid";
}
