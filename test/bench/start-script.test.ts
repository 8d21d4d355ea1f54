import { describe, expect, it } from "vitest";
import { parseStartScript } from "../../support/bench/start-script.ts";

describe("parseStartScript", () => {
  it("reads the variables before `node` and Node's options after it, path variables resolved", () => {
    expect(
      parseStartScript(
        `NODE_COMPILE_CACHE=\${NODE_COMPILE_CACHE:-node_modules/.cache/c} FOO=bar node --optimize-for-size --max-semi-space-size=32 --env-file-if-exists=.env src/main.ts --not-node`,
        "/repo",
      ),
    ).toEqual({
      env: { NODE_COMPILE_CACHE: "/repo/node_modules/.cache/c", FOO: "bar" },
      nodeArgs: ["--optimize-for-size", "--max-semi-space-size=32"],
    });
  });

  it("keeps an absolute cache path and reads a script with no variables", () => {
    expect(parseStartScript("NODE_COMPILE_CACHE=/c node src/main.ts", "/repo")).toEqual({
      env: { NODE_COMPILE_CACHE: "/c" },
      nodeArgs: [],
    });
    expect(parseStartScript("node --max-semi-space-size=32 src/main.ts", "/repo")).toEqual({
      env: {},
      nodeArgs: ["--max-semi-space-size=32"],
    });
  });
});
