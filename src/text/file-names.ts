import { stripInvisibleChars } from "./invisible-chars.ts";

/** Long enough for any real recording's name; short enough for a sentence and a disk. */
const MAX_FILE_NAME_CHARS = 200;
/** What most file systems allow for one name, in UTF-8 bytes. */
const MAX_FILE_NAME_BYTES = 255;

/** `/`, `\` and their percent-encoded forms, which a server might decode. */
const SEPARATORS = /[/\\]|%2f|%5c/i;
const CONTROL_CHARS = /\p{Cc}/gu;
/** Half of a surrogate pair without the other half: not a character, not valid UTF-8. */
const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const EXTENSION = /\.([A-Za-z0-9]{1,10})$/;
const DOTS_AND_SPACES_AT_ENDS = /^[\s.]+|[\s.]+$/g;
const FALLBACK_STEM = "recording";

/**
 * A file name from outside made safe to send, show or store: one path component, no control,
 * invisible or bidi characters, no dots at its ends, at most 200 characters and 255 UTF-8
 * bytes with the extension kept. Idempotent.
 */
export function safeFileName(name: string, options: { fallbackExtension?: string } = {}): string {
  // Cutting a long name can leave an end that reads as an extension (`…..abab`): cleaned
  // again until nothing changes, so a second call never changes the name.
  let safe = cleanOnce(name, options);
  for (let pass = 0; pass < 5; pass++) {
    const again = cleanOnce(safe, {});
    if (again === safe) break;
    safe = again;
  }
  return safe;
}

function cleanOnce(name: string, options: { fallbackExtension?: string }): string {
  const flat = stripInvisibleChars(name)
    .replace(CONTROL_CHARS, "")
    .replace(LONE_SURROGATES, "")
    // After the removals: a removed character can separate a letter from its accent.
    .normalize("NFC")
    .split(SEPARATORS)
    // Empty pieces, `.` and `..` are path syntax, not part of a name.
    .filter((piece) => !/^[\s.]*$/.test(piece))
    .join("_")
    // Before the extension is looked for: `a..b.` and its result `a..b` must both be `a.b`.
    .replace(/[\s.]+$/, "");
  const match = EXTENSION.exec(flat);
  const fallback = options.fallbackExtension;
  const extension =
    match?.[1] ?? (fallback !== undefined && /^[A-Za-z0-9]{1,10}$/.test(fallback) ? fallback : "");
  const stem = (match === null ? flat : flat.slice(0, match.index)).replace(
    DOTS_AND_SPACES_AT_ENDS,
    "",
  );
  return withinLimits(stem, extension === "" ? "" : `.${extension}`);
}

/** The stem shortened (whole code points) until stem + suffix is within both limits. */
function withinLimits(stem: string, suffix: string): string {
  let chars = suffix.length;
  let bytes = Buffer.byteLength(suffix);
  let end = 0;
  for (const point of stem) {
    chars += point.length;
    bytes += Buffer.byteLength(point);
    if (chars > MAX_FILE_NAME_CHARS || bytes > MAX_FILE_NAME_BYTES) break;
    end += point.length;
  }
  const kept = stem.slice(0, end).replace(DOTS_AND_SPACES_AT_ENDS, "");
  return `${kept === "" ? FALLBACK_STEM : kept}${suffix}`;
}
