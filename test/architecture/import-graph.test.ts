import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SRC = join(ROOT, "src");

/** Every `.ts` file under `dir`, relative to the repository root. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [relative(ROOT, path)] : [];
  });
}

const SPECIFIER = /(?:import|export)\s[^;]*?from\s+"([^"]+)"|import\(\s*"([^"]+)"\s*\)/gs;

/** Each file's imports (type-only ones too: a cycle of types still ties two files). */
function importGraph(): Map<string, { local: string[]; packages: string[] }> {
  const graph = new Map<string, { local: string[]; packages: string[] }>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(join(ROOT, file), "utf8");
    const local: string[] = [];
    const packages: string[] = [];
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2] ?? "";
      if (specifier.startsWith(".")) local.push(normalize(join(dirname(file), specifier)));
      else packages.push(specifier);
    }
    graph.set(file, { local, packages });
  }
  return graph;
}

/** The import cycles (strongly connected components of more than one file), Tarjan's way. */
function cycles(graph: Map<string, { local: string[] }>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file) ?? 0);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file)?.local ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    for (;;) {
      const member = stack.pop() ?? file;
      onStack.delete(member);
      component.push(member);
      if (member === file) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe("src/ import graph", () => {
  const graph = importGraph();

  it("reads the source (the scan works)", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get(join("src", "app.ts"))?.local).toContain(join("src", "config.ts"));
  });

  it("has no import cycle, type-only imports included", () => {
    expect(cycles(graph)).toEqual([]);
  });

  it("finds a cycle when there is one (the check works)", () => {
    const a = { local: ["b"], packages: [] };
    const b = { local: ["a"], packages: [] };
    expect(
      cycles(
        new Map([
          ["a", a],
          ["b", b],
        ]),
      ),
    ).toEqual([["a", "b"]]);
  });

  it("keeps the layers: jobs and notetaker know nothing of Slack, notetaker nothing of jobs", () => {
    const offending: string[] = [];
    for (const [file, { local, packages }] of graph) {
      const layer = file.split("/")[1];
      const slack = packages.some((p) => p.startsWith("@slack/"));
      const reaches = (dir: string) => local.some((l) => l.startsWith(join("src", dir)));
      if ((layer === "jobs" || layer === "notetaker") && (slack || reaches("slack"))) {
        offending.push(`${file} → Slack`);
      }
      if (layer === "notetaker" && reaches("jobs")) offending.push(`${file} → jobs`);
      if (layer === "store" && (reaches("jobs") || reaches("slack"))) {
        offending.push(`${file} → a layer above`);
      }
    }
    expect(offending).toEqual([]);
  });

  it("keeps the generic helpers (src/text, src/util) free of every other folder of src/", () => {
    const offending: string[] = [];
    for (const [file, { local, packages }] of graph) {
      const layer = file.split("/")[1];
      if (layer !== "text" && layer !== "util") continue;
      const outside = local.filter((l) => !l.startsWith(join("src", layer)));
      for (const target of outside) offending.push(`${file} → ${target}`);
      if (packages.some((p) => p.startsWith("@slack/"))) offending.push(`${file} → Slack`);
    }
    expect(offending).toEqual([]);
  });

  it("keeps the job layer's folders in their order (src/jobs/README.md)", () => {
    expect(jobFolderViolations(graph)).toEqual([]);
  });

  it("finds a job-layer import running the wrong way (the check works)", () => {
    const planted = new Map(graph);
    const model = join("src", "jobs", "model", "job.ts");
    const runner = join("src", "jobs", "engine", "runner.ts");
    planted.set(model, { local: [runner], packages: [] });
    expect(jobFolderViolations(planted)).toEqual([`${model} → ${runner}`]);
    const files = join("src", "jobs", "files", "job-files.ts");
    planted.set(model, { local: [], packages: [] });
    planted.set(files, { local: [runner], packages: [] });
    expect(jobFolderViolations(planted)).toEqual([`${files} → ${runner}`]);
  });

  it("keeps src/jobs small at its top: the composition, the ports, the index", () => {
    const top = [...graph.keys()].filter((f) => dirname(f) === join("src", "jobs"));
    expect(top.length).toBeLessThanOrEqual(12);
  });

  it("lets slack/ take from notetaker/ only the Note Service's own rules: types, errors, limits", () => {
    const offending: string[] = [];
    for (const file of graph.keys()) {
      if (file.split("/")[1] !== "slack") continue;
      const text = readFileSync(join(ROOT, file), "utf8");
      for (const name of notetakerValues(text)) {
        if (!NOTE_SERVICE_RULE.test(name)) offending.push(`${file}: ${name}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it("lets listeners reach Slack only through the directory and the responder", () => {
    const offending: string[] = [];
    for (const file of graph.keys()) {
      if (!file.startsWith(join("src", "slack", "listeners"))) continue;
      const text = readFileSync(join(ROOT, file), "utf8");
      for (const call of rawSlackCalls(text)) offending.push(`${file}: ${call}`);
    }
    expect(offending).toEqual([]);
  });

  it("finds a raw Web API call (the check works)", () => {
    expect(rawSlackCalls("await args.client.chat.postMessage({ channel });")).toEqual([
      "client.chat.postMessage",
    ]);
    expect(rawSlackCalls('import type { WebClient } from "@slack/web-api";')).toEqual([
      "@slack/web-api",
    ]);
    expect(rawSlackCalls("await deps.responder.tellUser(target, reply);")).toEqual([]);
  });

  it("finds a generic helper taken from notetaker/ (the check works)", () => {
    const text =
      'import { type Dialog, MAX_TEMPLATE_BYTES, safeFileName } from "../notetaker/index.ts";';
    expect(notetakerValues(text).filter((n) => !NOTE_SERVICE_RULE.test(n))).toEqual([
      "safeFileName",
    ]);
    expect(notetakerValues('import type { Dialog } from "../../notetaker/index.ts";')).toEqual([]);
  });
});

/** The API's limits (`MAX_…`) and its error classes: what the Note Service itself decides. */
const NOTE_SERVICE_RULE = /^(MAX_[A-Z0-9_]+|NoteTaker\w*Error)$/;

/** The values (not types) a file imports from `notetaker/`. */
function notetakerValues(text: string): string[] {
  const names: string[] = [];
  const IMPORT = /import\s+(type\s+)?\{([^}]*)\}\s+from\s+"[./]*notetaker\/[^"]*"/gs;
  for (const [, typeOnly, list = ""] of text.matchAll(IMPORT)) {
    if (typeOnly !== undefined) continue;
    for (const item of list.split(",").map((s) => s.trim())) {
      if (item !== "" && !item.startsWith("type ")) names.push(item.split(/\s+as\s+/)[0] ?? item);
    }
  }
  return names;
}

/** Web API calls on a client (`client.chat.postMessage`), and imports of the Web API package. */
function rawSlackCalls(text: string): string[] {
  const calls = [...text.matchAll(/\bclient\s*\.\s*([a-z]+(?:\s*\.\s*[A-Za-z]+)*)/g)].map(
    ([, method = ""]) => `client.${method.replace(/\s+/g, "")}`,
  );
  const imports = [...text.matchAll(/from\s+"(@slack\/web-api)"/g)].map(([, name = ""]) => name);
  return [...calls, ...imports];
}

/**
 * What each folder of `src/jobs` may import from the others: the job model imports none;
 * persistence and the job's files only the model; the engine (the runner and every stage's
 * step) neither recovery nor the services; recovery not the services.
 */
const JOB_FOLDER_RULES: Record<string, readonly string[]> = {
  model: ["model"],
  persistence: ["model", "persistence"],
  files: ["model", "files"],
  engine: ["model", "persistence", "ports.ts", "files", "engine"],
  recovery: ["model", "persistence", "ports.ts", "engine", "files", "recovery"],
};

/** The imports inside `src/jobs` that break {@link JOB_FOLDER_RULES}. */
function jobFolderViolations(graph: Map<string, { local: string[] }>): string[] {
  const jobs = join("src", "jobs");
  const folderOf = (file: string) => relative(jobs, file).split("/")[0] ?? "";
  const offending: string[] = [];
  for (const [file, { local }] of graph) {
    if (!file.startsWith(`${jobs}/`)) continue;
    const allowed = JOB_FOLDER_RULES[folderOf(file)];
    if (allowed === undefined) continue;
    for (const target of local) {
      if (target.startsWith(`${jobs}/`) && !allowed.includes(folderOf(target))) {
        offending.push(`${file} → ${target}`);
      }
    }
  }
  return offending;
}
