import { SLACK_USER_ID } from "../../jobs/index.ts";
import { neutralizeMentions } from "./neutralize-mentions.ts";

/** A speaker the person named by picking a Slack member: the name the note uses, and who. */
export interface Person {
  name: string;
  userId: string;
}

/** Where the name of one of the people is in a text: [start, end), and who it is. */
export interface NameFound {
  start: number;
  end: number;
  userId: string;
}

/**
 * Turns the names of `people` in a note into mentions (`mention(userId)`), whole words
 * only, longest names first so "Anna Lee" wins over "Anna". Only these people can be
 * mentioned: the text's own `<@…>` were neutralised before this runs, and a name typed in
 * the modal or heard in the recording is not in `people`.
 */
export function mentionPeople(
  text: string,
  people: readonly Person[],
  mention: (userId: string) => string,
): string {
  const find = nameFinder(people);
  if (find === undefined) return text;
  let out = "";
  let position = 0;
  for (const found of find(text)) {
    out += text.slice(position, found.start) + mention(found.userId);
    position = found.end;
  }
  return out + text.slice(position);
}

/**
 * What `mentionPeople` matches, for a caller that builds mentions itself rather than as
 * text (the canvas inserts them as nodes of a Markdown tree): a function that finds the
 * names of `people` in a text, in order, or undefined when no one can be mentioned. Built
 * once for many texts.
 */
export function nameFinder(people: readonly Person[]): ((text: string) => NameFound[]) | undefined {
  const byName = new Map<string, string>();
  for (const person of people) {
    const name = person.name.trim();
    if (SLACK_USER_ID.test(person.userId) && name.length >= 2 && !byName.has(name)) {
      byName.set(name, person.userId);
    }
  }
  if (byName.size === 0) return undefined;
  const names = [...byName.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const pattern = new RegExp(
    `(?<![\\p{L}\\p{N}_@])(?:${names.join("|")})(?![\\p{L}\\p{N}_])`,
    "gu",
  );
  return (text) => {
    const found: NameFound[] = [];
    for (const match of text.matchAll(pattern)) {
      const userId = byName.get(match[0]);
      if (userId !== undefined) {
        found.push({ start: match.index, end: match.index + match[0].length, userId });
      }
    }
    return found;
  };
}

/** A Slack user mention as the app writes one, `<@U…>` (no label). */
const USER_MENTION = /<@([UW][A-Z0-9]{2,})>/g;

/**
 * Neutralises every mention and broadcast of a text (as `neutralizeMentions` does) except
 * the plain mentions `<@U…>` of `people`, which stay live. For text the app has already
 * made safe and then mentioned people in (`splitNote`), this changes nothing; for any other
 * text it leaves no one to ping but those people. Never makes the text longer.
 */
export function neutralizeOtherMentions(text: string, people: readonly Person[]): string {
  const allowed = new Set(
    people.map((person) => person.userId).filter((id) => SLACK_USER_ID.test(id)),
  );
  if (allowed.size === 0) return neutralizeMentions(text);
  let out = "";
  let position = 0;
  for (const match of text.matchAll(USER_MENTION)) {
    if (!allowed.has(match[1] ?? "")) continue;
    out += neutralizeMentions(text.slice(position, match.index)) + match[0];
    position = match.index + match[0].length;
  }
  return out + neutralizeMentions(text.slice(position));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
