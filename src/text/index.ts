/**
 * Generic text rules that know nothing of Slack, the Note Service or jobs: invisible and
 * bidi characters, safe file names, ISO 639-1 codes. Every layer may use them; they use
 * no other folder of `src/`.
 */
export { safeFileName } from "./file-names.ts";
export {
  isBidiControl,
  isInvisibleChar,
  stripBidiControls,
  stripInvisibleChars,
} from "./invisible-chars.ts";
export { ISO_639_1_CODES } from "./iso-639-1.ts";
