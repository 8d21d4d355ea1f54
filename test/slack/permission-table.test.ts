import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PERMISSION_TABLE, type Place, type Role } from "../../src/slack/permissions.ts";

/*
 * SECURITY.md's "Who may do what" and the code's PERMISSION_TABLE are one table: this reads
 * the page's and compares it with the constant, so that neither changes alone.
 */

/** How SECURITY.md words each role and place. */
const ROLE_WORDS: Record<Role, string> = {
  starter: "the job's starter",
  admin: "a workspace admin or owner",
  non_guest: "a member who is not a guest",
  anyone: "anyone",
};
const PLACE_WORDS: Record<Place, string> = {
  job_channel: "the job's channel",
  channel: "the channel",
  destination: "the conversation, and the bot too",
  file_share: "a conversation the file is shared in, unless they uploaded it",
};

/** The rows of the first table under `heading`, cells trimmed. */
function tableUnder(markdown: string, heading: string): string[][] {
  const lines = markdown.split("\n");
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`no "${heading}" in the page`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("## ")) break;
    if (!line.startsWith("|")) {
      if (rows.length > 0) break;
      continue;
    }
    rows.push(
      line
        .slice(1, line.lastIndexOf("|"))
        .split("|")
        .map((cell) => cell.trim()),
    );
  }
  // The header and its separator row.
  return rows.slice(2);
}

/** A word's key in `words`; fails the test on a word the table does not know. */
function keyOf<K extends string>(words: Record<K, string>, text: string): K {
  const found = (Object.keys(words) as K[]).find((key) => words[key] === text);
  if (found === undefined) throw new Error(`SECURITY.md says "${text}", which no rule means`);
  return found;
}

/** SECURITY.md's table, read back into the shape of PERMISSION_TABLE. */
function documentedTable(markdown: string) {
  const rows = tableUnder(markdown, "## Who may do what");
  return Object.fromEntries(
    rows.map(([action = "", may = "", place = ""]) => {
      const name = /^`(\w+)`/.exec(action)?.[1];
      if (name === undefined) throw new Error(`a row without an action name: ${action}`);
      const roles = may.split("; ").map((words) => keyOf(ROLE_WORDS, words));
      return [name, { may: roles, mustBeIn: keyOf(PLACE_WORDS, place) }];
    }),
  );
}

describe("who may do what", () => {
  const security = readFileSync(new URL("../../SECURITY.md", import.meta.url), "utf8");

  it("SECURITY.md's table is the code's table, row for row", () => {
    expect(documentedTable(security)).toEqual(PERMISSION_TABLE);
  });

  it("notices a row changed on one side only", () => {
    const edited = security.replace(
      "| `cancel`: **Cancel** (button, `/meeting-notes cancel`) | the job's starter; a workspace admin or owner |",
      "| `cancel`: **Cancel** (button, `/meeting-notes cancel`) | the job's starter; a member who is not a guest |",
    );
    expect(edited).not.toBe(security);
    expect(documentedTable(edited)).not.toEqual(PERMISSION_TABLE);
    const dropped = security.replace(/^\| `retry`.*\n/m, "");
    expect(documentedTable(dropped)).not.toEqual(PERMISSION_TABLE);
  });
});
