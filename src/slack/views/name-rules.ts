import { stripInvisibleChars } from "../../text/index.ts";
import { type Locale, t } from "../messages/catalog.ts";
import { hasControlChars } from "../text/neutralize-mentions.ts";

/** The error for a typed name (too long, control characters), or undefined when it is fine. */
export function checkName(name: string, locale: Locale, max: number): string | undefined {
  if (hasControlChars(name)) return t(locale, "validation.control_chars");
  if ([...name].length > max) return t(locale, "validation.name_too_long", { max });
  return undefined;
}

/** Invisible characters (bidi controls…) go: a name reaches the note and must look as it is. */
export function cleanName(name: string): string {
  return stripInvisibleChars(name).trim();
}
