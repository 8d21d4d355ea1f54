import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as wire from "../../src/notetaker/schemas.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SRC = join(ROOT, "src");

/** Every key of a zod schema, through arrays, unions, optionals and pipes. */
function keysOf(schema: unknown, seen = new Set<unknown>()): string[] {
  if (typeof schema !== "object" || schema === null || seen.has(schema)) return [];
  seen.add(schema);
  const def = (schema as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
  if (def === undefined) return [];
  const shape = (def.shape ?? {}) as Record<string, unknown>;
  const inner = [
    def.element,
    def.innerType,
    def.in,
    def.out,
    def.valueType,
    ...((def.options ?? []) as unknown[]),
  ];
  return [
    ...Object.keys(shape),
    ...[...Object.values(shape), ...inner].flatMap((s) => keysOf(s, seen)),
  ];
}

/**
 * The Note Service's snake_case field names, read from its schemas. Its camelCase form fields
 * (`speakerMap`, `contextText`) are also the app's own words, so only these can tell the wire.
 */
const FIELDS = [...new Set(Object.values(wire).flatMap((s) => keysOf(s)))].filter((k) =>
  k.includes("_"),
);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("the Note Service's wire format", () => {
  it("is read from its schemas", () => {
    expect(FIELDS).toEqual(expect.arrayContaining(["speaker_id", "start_seconds", "task_id"]));
  });

  it("is spelled only in src/notetaker/: every other layer speaks the app's shapes", () => {
    const names = new RegExp(`\\b(${FIELDS.join("|")})\\b`);
    const found = sources(SRC)
      .map((path) => relative(ROOT, path).replaceAll("\\", "/"))
      .filter((path) => !path.startsWith("src/notetaker/"))
      .flatMap((path) => {
        const hit = readFileSync(join(ROOT, path), "utf8").match(names);
        return hit === null ? [] : [`${path}: ${hit[0]}`];
      });
    expect(found).toEqual([]);
  });
});
