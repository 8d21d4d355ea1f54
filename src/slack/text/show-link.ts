import { stripInvisibleChars } from "../../text/index.ts";

/** What a link shows in place of itself: its text, its target, or both (`text (target)`). */
export interface ShownLink {
  /** The link's text, trimmed; "" when the target alone is shown. */
  text: string;
  /** The target without invisible characters, trimmed; "" when there is none to show. */
  target: string;
}

/**
 * The one rule for how a link of an untrusted note shows where it goes, in the thread
 * (`showLinkTargets`) and in the canvas (`toCanvasMarkdown`) alike: `text (target)`; the
 * target alone when the link has no text or its text is its target; the text alone when
 * it has no target. The target is shown without invisible characters, so that what the
 * reader sees is where the link goes.
 */
export function showLink(text: string, target: string): ShownLink {
  const shownTarget = stripInvisibleChars(target).trim();
  const shownText = text.trim();
  if (shownTarget === "") return { text: shownText, target: "" };
  if (shownText === "" || shownText === shownTarget) return { text: "", target: shownTarget };
  return { text: shownText, target: shownTarget };
}

/** A shown link as plain text: `text (target)`, or whichever of the two it has. */
export function formatShownLink(shown: ShownLink): string {
  if (shown.text === "") return shown.target;
  return shown.target === "" ? shown.text : `${shown.text} (${shown.target})`;
}
