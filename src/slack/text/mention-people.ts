import { SLACK_USER_ID } from "../../jobs/index.ts";

/** A speaker the person named by picking a Slack member: the name the note uses, and who. */
export interface Person {
  name: string;
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
  const byName = new Map<string, string>();
  for (const person of people) {
    const name = person.name.trim();
    if (SLACK_USER_ID.test(person.userId) && name.length >= 2 && !byName.has(name)) {
      byName.set(name, person.userId);
    }
  }
  if (byName.size === 0) return text;
  const names = [...byName.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const pattern = new RegExp(
    `(?<![\\p{L}\\p{N}_@])(?:${names.join("|")})(?![\\p{L}\\p{N}_])`,
    "gu",
  );
  return text.replace(pattern, (name) => {
    const userId = byName.get(name);
    return userId === undefined ? name : mention(userId);
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
