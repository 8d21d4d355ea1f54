/**
 * Slack control sequences that notify someone or link a conversation: broadcasts
 * (`<!channel>`, `<!here>`, `<!everyone>`, `<!subteam^…>`, any other `<!…>`), users
 * (`<@U…>`, `<@W…>`) and channels (`<#C…>`, `<#G…>`), with an optional `|label`.
 */
const CONTROL_SEQUENCE = /<([!@#][^<>\n]*)>/g;
const UNCLOSED_SEQUENCE = /<(?=[!@#])/g;

/** Bare broadcast words, which Slack turns into `<!here>` etc. when `link_names` is on. */
const BARE_BROADCAST = /@(channel|here|everyone)\b/gi;

/**
 * Control characters (C0, DEL, C1: Unicode's `Cc`) except tab and newline; a carriage
 * return goes too. Read `[^\P{Cc}\t\n]` as "a `Cc` character that is not tab or newline".
 */
const CONTROL_CHARS = /[^\P{Cc}\t\n]/gu;

/**
 * The look-alikes are single UTF-16 units, like the characters they replace, so
 * neutralising never makes a note part longer than `splitMarkdown` measured it.
 */
const SINGLE_ANGLE_LEFT = "\u2039"; // ‹
const SINGLE_ANGLE_RIGHT = "\u203A"; // ›
const FULLWIDTH_AT = "\uFF20"; // ＠

/**
 * Makes text inert where escaping is not an option: `markdown` blocks and `text`
 * fallbacks, where `&lt;` would be shown as it is.
 *
 * The angle brackets of a control sequence are replaced with the look-alikes ‹ and ›
 * rather than split with a zero-width space: with no `<` left, no parser (mrkdwn, the
 * Markdown block's renderer, notifications, unfurls) can read a mention, whatever it does
 * with invisible characters — and the reader still sees `‹@U123›`. Bare `@channel`,
 * `@here` and `@everyone` get a full-width ＠ for the same reason. Both replacements keep
 * the length of the text. Other `<` (as in `a < b` or a plain link) are left alone.
 */
export function neutralizeMentions(text: string): string {
  const inert = stripControlChars(text)
    .replace(CONTROL_SEQUENCE, `${SINGLE_ANGLE_LEFT}$1${SINGLE_ANGLE_RIGHT}`)
    // An unclosed one too (`<!chan…` cut by a length limit): text joined after it could
    // close it.
    .replace(UNCLOSED_SEQUENCE, SINGLE_ANGLE_LEFT);
  return defuseBareBroadcasts(inert);
}

/** Gives bare `@channel`, `@here` and `@everyone` a full-width ＠ that Slack does not link. */
export function defuseBareBroadcasts(text: string): string {
  return text.replace(BARE_BROADCAST, `${FULLWIDTH_AT}$1`);
}

/** Removes control characters other than tab and newline. */
export function stripControlChars(text: string): string {
  return text.replace(CONTROL_CHARS, "");
}

/**
 * Whether text holds a control character. For a single-line value (a name) tab and newline
 * count too: they never belong in a name. `multiline` allows tab, newline and carriage
 * return, for text boxes.
 */
export function hasControlChars(text: string, options: { multiline?: boolean } = {}): boolean {
  return (options.multiline ? /[^\P{Cc}\t\n\r]/u : /\p{Cc}/u).test(text);
}
