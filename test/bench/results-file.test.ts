import { describe, expect, it } from "vitest";
import { mergeResults } from "../../support/bench/results-file.ts";

const ORDER = ["relay", "restart", "prepare"];

const previous = [
  "# Benchmark results",
  "",
  "Machine: old.",
  "to read; absolute times move with the load.",
  "",
  "<!-- bench:relay -->",
  "## 1. Relay",
  "old relay figures",
  "<!-- /bench:relay -->",
  "",
  "Before the relay (written by hand): 1.00×.",
  "",
  "<!-- bench:prepare -->",
  "## 3. Prepare",
  "old prepare figures",
  "<!-- /bench:prepare -->",
  "",
  "Closing words by hand.",
  "",
].join("\n");

describe("mergeResults", () => {
  it("replaces only the sections measured, keeping hand-written text where it was", () => {
    const merged = mergeResults(
      previous,
      "# Benchmark results\n\nMachine: new.",
      new Map([["prepare", "## 3. Prepare\nnew prepare figures"]]),
      ORDER,
    );
    expect(merged).toContain("Before the relay (written by hand): 1.00×.");
    expect(merged).toContain("Closing words by hand.");
    expect(merged).toContain("old relay figures");
    expect(merged).toContain("new prepare figures");
    expect(merged).not.toContain("old prepare figures");
    expect(merged).toContain("Machine: new.");
    expect(merged).not.toContain("Machine: old.");
    expect(merged.indexOf("Before the relay")).toBeLessThan(merged.indexOf("new prepare"));
  });

  it("puts a section the file lacks after the one before it, and is stable when run again", () => {
    const fresh = new Map([["restart", "## 2. Restart\nrestart figures"]]);
    const once = mergeResults(previous, "# Benchmark results\n\nMachine: new.", fresh, ORDER);
    const relayEnd = once.indexOf("<!-- /bench:relay -->");
    const restart = once.indexOf("<!-- bench:restart -->");
    expect(restart).toBeGreaterThan(relayEnd);
    expect(restart).toBeLessThan(once.indexOf("Before the relay"));
    const twice = mergeResults(once, "# Benchmark results\n\nMachine: new.", fresh, ORDER);
    expect(twice).toBe(once);
  });

  it("starts a file from nothing", () => {
    const merged = mergeResults("", "# Results", new Map([["relay", "figures"]]), ORDER);
    expect(merged).toBe(
      "<!-- bench:header -->\n# Results\n<!-- /bench:header -->\n\n<!-- bench:relay -->\nfigures\n<!-- /bench:relay -->\n",
    );
  });
});
