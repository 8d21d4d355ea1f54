import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/*
 * The repository explains itself: every document a file names (`docs/architecture.md`, a
 * README link, `SECURITY.md`) is in the repository, so nobody is sent to notes they do not
 * have. Looked for in the code, the tests, the docs, the README, compose and the Dockerfile.
 */

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PLACES = [
  "src",
  "test",
  "docs",
  "manifests",
  "README.md",
  "SECURITY.md",
  "compose.yaml",
  "Dockerfile",
];
/** A Markdown file's name, or a path ending in one. */
const DOCUMENT = /(?<![\w@/.-])((?:\.{1,2}\/)*(?:[\w-]+\/)*[\w.-]+\.md)\b/g;

function filesIn(path: string): string[] {
  const full = join(ROOT, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [full];
  return readdirSync(full, { recursive: true, encoding: "utf8" })
    .map((name) => join(full, name))
    .filter((name) => statSync(name).isFile() && /\.(ts|md|json|ya?ml)$|Dockerfile$/.test(name));
}

/** Where `file` names a document that is neither at that path from the root nor beside it. */
function missingReferences(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const missing = new Set<string>();
  for (const match of text.matchAll(DOCUMENT)) {
    const name = match[1] ?? "";
    const candidates = [resolve(ROOT, name), resolve(dirname(file), name)];
    if (!candidates.some((candidate) => existsSync(candidate))) missing.add(name);
  }
  return [...missing];
}

describe("the repository's references", () => {
  it("names only documents that are in the repository", () => {
    const files = PLACES.flatMap(filesIn);
    expect(files.length).toBeGreaterThan(100);
    const broken = files
      .map((file) => ({ file: relative(ROOT, file), missing: missingReferences(file) }))
      .filter((entry) => entry.missing.length > 0);
    expect(broken).toEqual([]);
  });

  it("sends nobody outside the repository for its design", () => {
    const outside = PLACES.flatMap(filesIn)
      .filter((file) => file !== fileURLToPath(import.meta.url))
      .filter((file) =>
        /\.\.\/shared\/|DESIGN\.md|note-taker-api\.md|STYLE\.md/.test(readFileSync(file, "utf8")),
      )
      .map((file) => relative(ROOT, file));
    expect(outside).toEqual([]);
  });
});
