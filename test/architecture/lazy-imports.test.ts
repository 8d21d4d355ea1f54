import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { childEnv } from "../../support/helpers/child-env.ts";

const SRC = new URL("../../src/", import.meta.url);

/**
 * Runs `body` (an ES module's text) in a fresh Node process that records every module file
 * it loads, and returns the packages of node_modules among them, and what `body` printed.
 */
function packagesLoaded(body: string): { packages: string[]; out: string } {
  const script = `
    import { registerHooks } from "node:module";
    const seen = new Set();
    registerHooks({
      load(url, context, next) {
        const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(url);
        if (m) seen.add(m[1]);
        return next(url, context);
      },
    });
    const src = ${JSON.stringify(SRC.href)};
    ${body}
    process.stdout.write("PACKAGES " + JSON.stringify([...seen]) + "\\n");
  `;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    env: childEnv(),
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
    encoding: "utf8",
  });
  expect(run.status, run.stderr).toBe(0);
  const packages = JSON.parse(/^PACKAGES (.*)$/m.exec(run.stdout)?.[1] ?? "null") as string[];
  return { packages, out: run.stdout };
}

/** Loaded only when used (`BENCH=footprint` measures what each costs). */
const ON_FIRST_USE = [
  "micromark",
  "micromark-extension-gfm",
  "mdast-util-from-markdown",
  "mdast-util-to-markdown",
  "mdast-util-gfm",
  "@keyv/redis",
  "@redis/client",
  // Bolt's Socket Mode client and its OAuth installer (deferred in create-bolt-app.ts).
  "@slack/socket-mode",
  "@slack/oauth",
  // prom-client and what its default collectors load: at the first scrape or count.
  "prom-client",
  "@opentelemetry/api",
];

describe("modules loaded on first use", () => {
  it("are not loaded by the app's modules at start", () => {
    const { packages } = packagesLoaded(`await import(src + "app.ts");`);
    // The check can fail: the app does load its other packages.
    expect(packages).toContain("@slack/bolt");
    expect(packages).toContain("zod");
    for (const name of ON_FIRST_USE) expect(packages, name).not.toContain(name);
  });

  it("load and work the first time they are used", () => {
    const { packages, out } = packagesLoaded(`
      const { toCanvasMarkdown } = await import(src + "slack/text/canvas-markdown.ts");
      process.stdout.write("MD " + JSON.stringify(toCanvasMarkdown("# Title\\n\\n| a | b |\\n|---|---|\\n| 1 | 2 |\\n\\n- [ ] task", [])) + "\\n");
    `);
    expect(packages).toEqual(
      expect.arrayContaining(["micromark", "mdast-util-from-markdown", "mdast-util-gfm"]),
    );
    const markdown = JSON.parse(/^MD (.*)$/m.exec(out)?.[1] ?? "null") as string;
    expect(markdown).toContain("| a | b |\n| - | - |\n| 1 | 2 |");
    expect(markdown).toContain("- [ ] task");
  });
});
