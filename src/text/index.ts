export { safeFileName } from "./file-names.ts";
export {
  isBidiControl,
  isInvisibleChar,
  stripBidiControls,
  stripInvisibleChars,
} from "./invisible-chars.ts";
export { ISO_639_1_CODES } from "./iso-639-1.ts";
