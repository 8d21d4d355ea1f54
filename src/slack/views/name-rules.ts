import { stripInvisibleChars } from "../../text/index.ts";
import { type Locale, t } from "../messages/index.ts";
import { hasControlChars } from "../text/index.ts";

/**
 * The rule for a typed name: at most `max` characters and no control characters. Returns
 * the error to show, or undefined when the name is fine. Names go to the Note Service as
 * speaker names and end up in the note.
 */
export function checkName(name: string, locale: Locale, max: number): string | undefined {
  if (hasControlChars(name)) return t(locale, "validation.control_chars");
  if ([...name].length > max) return t(locale, "validation.name_too_long", { max });
  return undefined;
}

/**
 * A name as typed or as Slack has it, without invisible characters (zero-width, bidi
 * controls…) and the spaces around it: a name goes to the Note Service and into the note,
 * and must look like what it is. Empty when nothing visible is left.
 */
export function cleanName(name: string): string {
  return stripInvisibleChars(name).trim();
}
