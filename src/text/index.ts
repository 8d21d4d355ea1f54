/* Generic text rules for every layer: invisible and bidi characters, file names, ISO 639-1. */

/**
 * Characters a reader cannot see: Unicode's format characters (`Cf`: zero-width, bidi marks,
 * tags…), the line and paragraph separators and the Hangul fillers.
 */
const INVISIBLE_CLASS = "[\\p{Cf}\\u2028\\u2029\\u115F\\u1160\\u3164\\uFFA0]";
const INVISIBLE = new RegExp(INVISIBLE_CLASS, "gu");
const ONE_INVISIBLE = new RegExp(`^${INVISIBLE_CLASS}$`, "u");

/** Bidi embeddings, overrides and isolates: they reorder what follows them. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
const ONE_BIDI_CONTROL = /^[\u202A-\u202E\u2066-\u2069]$/;

export function isInvisibleChar(char: string): boolean {
  return ONE_INVISIBLE.test(char);
}

/** For names, where no invisible character belongs (a ZWJ emoji falls apart). */
export function stripInvisibleChars(text: string): string {
  return text.replace(INVISIBLE, "");
}

/** For prose: the marks and joiners right-to-left text and emoji need stay. */
export function stripBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, "");
}

export function isBidiControl(char: string): boolean {
  return ONE_BIDI_CONTROL.test(char);
}

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

/** Every ISO 639-1 language code (184 two-letter codes, including the withdrawn "bh"). */
export const ISO_639_1_CODES: ReadonlySet<string> = new Set(
  (
    "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv " +
    "cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr " +
    "ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw " +
    "ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv " +
    "ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr " +
    "ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi " +
    "yo za zh zu"
  ).split(" "),
);
