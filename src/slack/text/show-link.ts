import { stripInvisibleChars } from "../../text/index.ts";

/** What a link shows in place of itself: its text, its target, or both (`text (target)`). */
export interface ShownLink {
  /** "" when the target alone is shown. */
  text: string;
  /** "" when there is none to show. */
  target: string;
}

/**
 * The one rule, in the thread and the canvas alike: `text (target)`, the target alone when the
 * text is empty or the same. Invisible characters go, so the reader sees where the link goes.
 */
export function showLink(text: string, target: string): ShownLink {
  const shownTarget = stripInvisibleChars(target).trim();
  const shownText = text.trim();
  if (shownTarget === "") return { text: shownText, target: "" };
  if (shownText === "" || shownText === shownTarget) return { text: "", target: shownTarget };
  return { text: shownText, target: shownTarget };
}

export function formatShownLink(shown: ShownLink): string {
  if (shown.text === "") return shown.target;
  return shown.target === "" ? shown.text : `${shown.text} (${shown.target})`;
}
