import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { configTable, END, README, START, withConfigTable } from "../../scripts/config-table.ts";
import { envSchema } from "../../src/config-schema.ts";

/** The README's configuration table is made from the schema, never written beside it. */
describe("the README's configuration table", () => {
  it("is the one the configuration schema makes (npm run docs:config writes it)", () => {
    const readme = readFileSync(README, "utf8");
    const shown = readme.slice(readme.indexOf(START) + START.length, readme.indexOf(END)).trim();
    expect(readme).toContain(START);
    expect(shown).toBe(configTable());
    expect(withConfigTable(readme)).toBe(readme);
  });

  it("has a row, with a meaning, for every variable the schema reads", () => {
    const rows = configTable().split("\n").slice(2);
    expect(rows.map((row) => row.split("`")[1])).toEqual(Object.keys(envSchema.shape));
    for (const row of rows) expect(row).toMatch(/^\| `\w+` \| [^|]+ \| [^|]{8,} \|$/);
  });

  it("shows each default as the schema gives it to an unset variable", () => {
    const row = (name: string) =>
      configTable()
        .split("\n")
        .find((r) => r.startsWith(`| \`${name}\``));
    expect(row("PORT")).toContain("| `3000` |");
    expect(row("STORE_URL")).toContain("| `sqlite://data/meeting-notes.sqlite` |");
    expect(row("NOTE_TAKER_API_KEY")).toContain("| — (required) |");
    expect(row("METRICS_PORT")).toContain("| — |");
    expect(row("RESULT_LINK_HOSTS")).toContain("| — |");
  });
});
