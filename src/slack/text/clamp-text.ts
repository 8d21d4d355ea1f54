const ELLIPSIS = "…";

/** For labels and previews only: note text is split, never clamped. Never cuts a surrogate pair. */
export function clampText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - ELLIPSIS.length);
  if (isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
  return `${text.slice(0, end).trimEnd()}${ELLIPSIS}`;
}

/** Also never cuts an entity such as `&amp;` in two, which Slack would show as a stray `&am`. */
export function clampMrkdwn(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = clampText(text, max).slice(0, -ELLIPSIS.length);
  const amp = cut.lastIndexOf("&");
  const broken = amp !== -1 && !cut.slice(amp).includes(";");
  return `${broken ? cut.slice(0, amp) : cut}${ELLIPSIS}`;
}

export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
