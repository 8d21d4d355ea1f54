import { SLACK_USER_ID } from "../../jobs/index.ts";
import { neutralizeMentions } from "./neutralize-mentions.ts";

/** A speaker named by picking a Slack member. */
export interface Person {
  name: string;
  userId: string;
}

export interface NameFound {
  start: number;
  end: number;
  userId: string;
}

/**
 * Where the names of `people` stand: whole words only, longest names first ("Anna Lee" before
 * "Anna"), never right after an `@`. Undefined when no one can be mentioned.
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

const USER_MENTION = /<@([UW][A-Z0-9]{2,})>/g;

/** Everything but the plain `<@U…>` of `people` is made inert; never makes the text longer. */
export function neutralizeOtherMentions(text: string, people: readonly Person[]): string {
  const allowed = mentionableIds(people);
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

export function mentionableIds(people: readonly Person[]): Set<string> {
  return new Set(people.map((person) => person.userId).filter((id) => SLACK_USER_ID.test(id)));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
