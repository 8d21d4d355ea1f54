import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { envSchema } from "../src/config-schema.ts";

/**
 * The README's configuration table, made from the configuration schema: each variable's
 * default is what the schema gives an unset variable, its meaning the schema's description.
 * `npm run docs:config` writes it between the markers; a test fails when the two differ.
 */

export const README = fileURLToPath(new URL("../README.md", import.meta.url));
export const START =
  "<!-- config-table: made by `npm run docs:config` from src/config-schema.ts -->";
export const END = "<!-- /config-table -->";

function defaultOf(schema: { safeParse(value: unknown): { success: boolean; data?: unknown } }) {
  const unset = schema.safeParse(undefined);
  if (!unset.success) return "— (required)";
  const value = unset.data;
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return "—";
  return `\`${String(value)}\``;
}

/** The table, one row per variable in the schema's order. */
export function configTable(): string {
  const rows = Object.entries(envSchema.shape).map(([name, schema]) => {
    const meaning = schema.description;
    if (meaning === undefined) throw new Error(`${name} has no description in the schema`);
    return `| \`${name}\` | ${defaultOf(schema)} | ${meaning} |`;
  });
  return ["| variable | default | meaning |", "|---|---|---|", ...rows].join("\n");
}

/** `readme` with the text between the markers replaced by the table. */
export function withConfigTable(readme: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${START} … ${END} markers`);
  return `${readme.slice(0, start + START.length)}\n${configTable()}\n${readme.slice(end)}`;
}

if (import.meta.main) {
  const before = readFileSync(README, "utf8");
  const after = withConfigTable(before);
  if (after !== before) writeFileSync(README, after);
  console.log(after === before ? "README.md: the table is current" : "README.md: table written");
}
