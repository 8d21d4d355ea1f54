import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Nodes } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { describe, expect, it } from "vitest";

/*
 * The README is a newcomer's first day: short, the trial on its first screen, and every page
 * of docs/ one link away. Links between the documents reach a file and, with a #fragment, a
 * heading of it, so moving a section cannot strand a reader.
 */

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const README = join(ROOT, "README.md");
const DOCS = join(ROOT, "docs");

function markdownFiles(): string[] {
  const folderReadmes = readdirSync(join(ROOT, "src"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith("README.md"))
    .map((name) => join(ROOT, "src", name));
  const docs = readdirSync(DOCS)
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(DOCS, name));
  return [README, join(ROOT, "SECURITY.md"), ...docs, ...folderReadmes];
}

function tree(file: string): Nodes {
  return fromMarkdown(readFileSync(file, "utf8"), {
    extensions: [gfm()],
    mdastExtensions: [gfmFromMarkdown()],
  });
}

function* walk(node: Nodes): Generator<Nodes> {
  yield node;
  if ("children" in node) for (const child of node.children) yield* walk(child);
}

function textOf(node: Nodes): string {
  if ("value" in node) return node.value;
  return "children" in node ? node.children.map(textOf).join("") : "";
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/ /g, "-");
}

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  for (const node of walk(tree(file))) if (node.type === "heading") anchors.add(slug(textOf(node)));
  return anchors;
}

/** Links to places in the repository, as written. */
function localLinks(file: string): string[] {
  const urls: string[] = [];
  for (const node of walk(tree(file))) {
    if (node.type === "link" && !/^[a-z]+:/i.test(node.url)) urls.push(node.url);
  }
  return urls;
}

describe("the README", () => {
  const lines = readFileSync(README, "utf8").split("\n");

  it("is at most 200 lines, with the one-command trial on its first screen", () => {
    expect(lines.length).toBeLessThanOrEqual(200);
    expect(lines.slice(0, 40).some((line) => line.includes("npm run trial"))).toBe(true);
  });

  it("links every page of docs/", () => {
    const linked = new Set(localLinks(README).map((url) => url.split("#")[0]));
    const pages = readdirSync(DOCS).filter((name) => name.endsWith(".md"));
    expect(pages.filter((page) => !linked.has(`docs/${page}`))).toEqual([]);
  });

  it("names npm test as the way to run the tests", () => {
    expect(lines.join("\n")).toMatch(/^npm test\b/m);
  });
});

describe("links between the documents", () => {
  it("reach a file of the repository, and a heading of it when they name one", () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      for (const url of localLinks(file)) {
        const [path = "", fragment] = url.split("#");
        const target = path === "" ? file : resolve(dirname(file), decodeURI(path));
        const where = `${relative(ROOT, file)} → ${url}`;
        if (!existsSync(target)) broken.push(`${where} (no such file)`);
        else if (fragment !== undefined && target.endsWith(".md") && statSync(target).isFile()) {
          if (!anchorsOf(target).has(fragment)) broken.push(`${where} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});

describe("the big rooms of src/", () => {
  it("each open with a short README saying what they hold", () => {
    for (const room of ["jobs", "slack", "store", "notetaker"]) {
      const readme = join(ROOT, "src", room, "README.md");
      expect(existsSync(readme), `src/${room}/README.md`).toBe(true);
      expect(readFileSync(readme, "utf8").split("\n").length).toBeLessThanOrEqual(40);
    }
  });
});
