import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createFakeSlack } from "../../support/fake-slack/create-fake-slack.ts";
import { childEnv } from "../../support/helpers/child-env.ts";

/**
 * What can be proven about the deployment files without a Docker engine: the health probe
 * against real servers, the Dockerfile, .dockerignore and compose.yaml as text, and that
 * `npm ci --omit=dev` installs every package the app imports.
 */

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const HEALTHCHECK = join(ROOT, "src/healthcheck.ts");
const MAIN = join(ROOT, "src/main.ts");
/** Set in the probe's environment; it must never appear in its output. */
const SENTINEL = "xoxb-sentinel-secret-value";

function runHealthcheck(port: string | undefined) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const env: Record<string, string> = {
      ...childEnv(),
      SLACK_BOT_TOKEN: SENTINEL,
      NOTE_TAKER_API_KEY: SENTINEL,
    };
    if (port !== undefined) env.PORT = port;
    const child = spawn(process.execPath, [HEALTHCHECK], { env, cwd: ROOT });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

const portOf = (server: Server) => String((server.address() as AddressInfo).port);
const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

describe.concurrent("src/healthcheck.ts", () => {
  it("exits 0, silently, when /healthz answers 200", async () => {
    const paths: string[] = [];
    const server = await listen((req, res) => {
      paths.push(`${req.method} ${req.url}`);
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    });
    try {
      const result = await runHealthcheck(portOf(server));
      expect(result).toMatchObject({ code: 0, stdout: "", stderr: "" });
      expect(paths).toEqual(["GET /healthz"]);
    } finally {
      await close(server);
    }
  });

  it("exits 1 with one line on stderr when /healthz answers 503", async () => {
    const server = await listen((_req, res) => {
      res.writeHead(503).end('{"ok":false}');
    });
    try {
      const { code, stdout, stderr } = await runHealthcheck(portOf(server));
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr).toMatch(/^healthcheck: .*\/healthz answered 503\n$/);
    } finally {
      await close(server);
    }
  });

  it("exits 1 with one line on stderr when nothing listens on PORT", async () => {
    const server = await listen(() => {});
    const port = portOf(server);
    await close(server);
    const { code, stderr } = await runHealthcheck(port);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^healthcheck: .* is unreachable: ECONNREFUSED\n$/);
  });

  it("exits 1 by its own deadline, inside Docker's, when the server accepts but never answers", async () => {
    const server = await listen(() => {});
    try {
      // Nothing but its own timer can end it: a probe without one would hang this test.
      const { code, stderr } = await runHealthcheck(portOf(server));
      expect(code).toBe(1);
      const deadlineMs = Number(
        /^healthcheck: no answer from .* within (\d+) ms\n$/.exec(stderr)?.[1],
      );
      const dockerMs =
        Number(/HEALTHCHECK .*--timeout=(\d+)s/.exec(read("Dockerfile"))?.[1]) * 1000;
      expect(deadlineMs).toBeGreaterThan(0);
      // A second inside Docker's, for Node's own start.
      expect(deadlineMs).toBeLessThanOrEqual(dockerMs - 1000);
    } finally {
      await close(server);
    }
  });

  it("exits 1 on a PORT that is not a port, without echoing it", async () => {
    const { code, stderr } = await runHealthcheck("not-a-port");
    expect(code).toBe(1);
    expect(stderr).toBe("healthcheck: PORT is not a port number from 1 to 65535\n");
  });

  it("reads PORT and no other variable, and never prints the environment", async () => {
    const source = read("src/healthcheck.ts");
    const envReads = source.match(/process\.env(\.\w+|\[[^\]]*\])?/g) ?? [];
    expect(envReads.length).toBeGreaterThan(0);
    expect(new Set(envReads)).toEqual(new Set(["process.env.PORT"]));
    // Only node: built-ins.
    for (const [, specifier] of source.matchAll(/from\s+"([^"]+)"/g)) {
      expect(specifier).toMatch(/^node:/);
    }
    const outputs = await Promise.all([runHealthcheck(undefined), runHealthcheck("1")]);
    for (const { stdout, stderr } of outputs) {
      expect(stdout + stderr).not.toContain(SENTINEL);
    }
  });

  it("agrees with the app: exits 0 against the real /healthz of src/main.ts", async () => {
    let child: ChildProcess | undefined;
    // The bot checks its token with Slack before it serves: a fake Slack answers.
    const slack = await createFakeSlack();
    try {
      child = spawn(process.execPath, [MAIN], {
        env: {
          ...childEnv(),
          SLACK_BOT_TOKEN: slack.botToken,
          SLACK_SIGNING_SECRET: "test-signing-secret",
          NOTE_TAKER_BASE_URL: "http://127.0.0.1:9/api/v1/third-party/note-taker",
          NOTE_TAKER_API_KEY: "test-api-key",
          PORT: "0",
          STORE_URL: "memory://",
          SLACK_API_URL: slack.apiUrl,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const started = child;
      const port = await new Promise<string>((resolve, reject) => {
        let out = "";
        started.stdout?.on("data", (chunk) => {
          out += chunk;
          const match = /"port":(\d+)/.exec(out);
          if (match?.[1]) resolve(match[1]);
        });
        started.on("close", () => reject(new Error(`main exited early: ${out}`)));
      });
      const { code, stderr } = await runHealthcheck(port);
      expect(stderr).toBe("");
      expect(code).toBe(0);
    } finally {
      child?.kill("SIGKILL");
      await slack.close();
    }
  });
});

/** Dockerfile instructions with continuation lines joined and comments dropped. */
function dockerfileInstructions(text: string) {
  const logical = text
    .split("\n")
    .filter((line) => !/^\s*#/.test(line))
    .join("\n")
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim().replace(/\s+/g, " "))
    .filter((line) => line !== "");
  let stage = -1;
  return logical.map((line) => {
    const [keyword = "", ...rest] = line.split(" ");
    const upper = keyword.toUpperCase();
    if (upper === "FROM") stage += 1;
    return { keyword: upper, args: rest.join(" "), stage };
  });
}

describe("Dockerfile", () => {
  const instructions = dockerfileInstructions(read("Dockerfile"));
  const index = (keyword: string, args?: RegExp) =>
    instructions.findIndex(
      (i) => i.keyword === keyword && (args === undefined || args.test(i.args)),
    );
  const runtime = Math.max(...instructions.map((i) => i.stage));

  it("has two stages, both FROM node:24-slim", () => {
    const froms = instructions.filter((i) => i.keyword === "FROM").map((i) => i.args);
    expect(froms).toHaveLength(2);
    for (const from of froms) expect(from).toMatch(/^node:24-slim( AS \w+)?$/i);
  });

  it("installs production dependencies only, with no compiler and no install script", () => {
    const runs = instructions.filter((i) => i.keyword === "RUN");
    expect(
      runs.some((r) => /python3|\bmake\b|g\+\+|gcc|build-essential|node-gyp/.test(r.args)),
    ).toBe(false);
    // Debian's packages are installed once, in the runtime stage: FFmpeg, and util-linux
    // for the prlimit that bounds its memory, and nothing else.
    const apt = runs.filter((r) => /apt-get/.test(r.args));
    expect(apt.map((r) => r.stage)).toEqual([runtime]);
    expect(apt[0]?.args).toMatch(
      /apt-get update && apt-get install -y --no-install-recommends ffmpeg util-linux && rm -rf \/var\/lib\/apt\/lists\/\*/,
    );
    expect(instructions.some((i) => /--ignore-scripts/.test(i.args))).toBe(true);
    const npmCi = index("RUN", /\bnpm ci --omit=dev\b/);
    expect(npmCi).toBeGreaterThan(-1);
    expect(instructions[npmCi]?.stage).toBe(0);
    // The lock file is in place before npm ci; the source comes after (layer cache).
    expect(index("COPY", /package-lock\.json/)).toBeLessThan(npmCi);
    expect(index("COPY", /^src\/? /)).toBeGreaterThan(npmCi);
    expect(instructions.some((i) => /npm (install|i)\b/.test(i.args))).toBe(false);
  });

  it("runs as the node user, in production, with a healthcheck, the data volume and port 3000", () => {
    const at = (keyword: string, args?: RegExp) => {
      const i = index(keyword, args);
      expect(i, `${keyword} ${args ?? ""}`).toBeGreaterThan(-1);
      expect(instructions[i]?.stage, `${keyword} in the runtime stage`).toBe(runtime);
      return i;
    };
    at("ENV", /^NODE_ENV=production$/);
    // The code stays root-owned; only the data folder belongs to the app user.
    at("COPY", /^--from=build \/app \/app$/);
    const mkdir = at("RUN", /mkdir -p \/app\/data.*chown node:node \/app\/data/);
    const volume = at("VOLUME", /^(\/app\/data|\["\/app\/data"\])$/);
    // Files put in a volume's path after VOLUME are discarded: the folder must come first.
    expect(mkdir).toBeLessThan(volume);
    const user = at("USER", /^node$/);
    at("EXPOSE", /^3000$/);
    const healthcheck = at("HEALTHCHECK", /CMD \["node", "src\/healthcheck\.ts"\]$/);
    expect(instructions[healthcheck]?.args).toMatch(/--timeout=\d+s/);
    const cmd = instructions.findIndex((i) => i.keyword === "CMD");
    expect(instructions[cmd]?.args).toBe('["node", "--optimize-for-size", "src/main.ts"]');
    expect(instructions.filter((i) => i.keyword === "CMD")).toHaveLength(1);
    expect(user).toBeLessThan(cmd);
    expect(instructions.findLastIndex((i) => i.keyword === "USER")).toBe(user);
  });

  it("runs the bot with the V8 flags of `npm start`", () => {
    const start = (JSON.parse(read("package.json")) as { scripts: { start: string } }).scripts
      .start;
    // Node's options, `--env-file…` aside (the image gets its configuration from `docker run`).
    const flags = (text: string) =>
      (text.match(/--[\w-]+(=[\w.-]+)?/g) ?? []).filter((f) => !f.startsWith("--env-file"));
    const cmd = instructions.find((i) => i.keyword === "CMD")?.args ?? "";
    const warm = instructions.find(
      (i) => i.keyword === "RUN" && /scripts\/warm-compile-cache\.ts/.test(i.args),
    );
    expect(flags(start)).toEqual(["--optimize-for-size"]);
    expect(flags(cmd)).toEqual(flags(start));
    // The compile cache is kept per set of V8 flags: filled under others, the bot would miss it.
    expect(flags(warm?.args ?? "")).toEqual(flags(start));
  });

  it("warms Node's compile cache at build time and points the app at it", () => {
    const env = (stage: number | undefined) =>
      instructions.findIndex(
        (i) =>
          i.keyword === "ENV" &&
          i.stage === stage &&
          /^NODE_COMPILE_CACHE=\/app\/node_modules\/\.cache\/node-compile-cache$/.test(i.args),
      );
    const warm = instructions.findIndex(
      (i) => i.keyword === "RUN" && /node .*scripts\/warm-compile-cache\.ts/.test(i.args),
    );
    const copySrc = instructions.findIndex((i) => i.keyword === "COPY" && /^src\//.test(i.args));
    expect(warm).toBeGreaterThan(-1);
    const build = instructions[warm]?.stage;
    // Filled where the code is, after it is copied, with the folder the app reads at run time.
    expect(build).not.toBe(runtime);
    expect(copySrc).toBeLessThan(warm);
    expect(env(build)).toBeGreaterThan(-1);
    expect(env(build)).toBeLessThan(warm);
    expect(env(runtime)).toBeGreaterThan(-1);
  });

  it("copies only files that exist in the repository", () => {
    const copies = instructions.filter(
      (i) => (i.keyword === "COPY" || i.keyword === "ADD") && !i.args.includes("--from="),
    );
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const parts = copy.args.split(" ").filter((part) => !part.startsWith("--"));
      for (const source of parts.slice(0, -1)) {
        expect(existsSync(join(ROOT, source)), `COPY source ${source}`).toBe(true);
      }
    }
  });

  it("bakes in no secret: no ENV or ARG carries a token, a secret or a key", () => {
    for (const i of instructions.filter((x) => x.keyword === "ENV" || x.keyword === "ARG")) {
      expect(i.args).not.toMatch(/TOKEN|SECRET|API_KEY|PASSWORD/i);
    }
  });
});

/** Every `.ts` file under a folder. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
const packageName = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

/**
 * The packages a source file needs at run time: static imports and re-exports (a whole
 * `import type` / `export type` is erased by type stripping, so it needs nothing), dynamic
 * `import("x")`, and pino transport targets, which pino loads by name.
 */
function runtimeSpecifiers(source: string): string[] {
  const patterns = [
    /^\s*import\s+(?!type\s)(?:[^'";]*?\s+from\s+)?["']([^"']+)["']/gm,
    /^\s*export\s+(?!type\s)[^'";]*?\s+from\s+["']([^"']+)["']/gm,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
    /\btarget:\s*["']([^"']+)["']/g,
  ];
  // A package the file first looks for with import.meta.resolve is optional at run time
  // (pino-pretty: pretty logs at a terminal when installed, JSON lines otherwise).
  const optional = new Set(
    [...source.matchAll(/import\.meta\.resolve\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]),
  );
  return patterns
    .flatMap((pattern) => [...source.matchAll(pattern)].map((match) => match[1] ?? ""))
    .filter((specifier) => !optional.has(specifier));
}

describe("production dependencies suffice (npm ci --omit=dev)", () => {
  const pkg = JSON.parse(read("package.json")) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const lock = JSON.parse(read("package-lock.json")) as {
    packages: Record<string, { dev?: boolean; dependencies?: Record<string, string> }>;
  };
  const needed = new Map<string, string>();
  for (const file of tsFiles(join(ROOT, "src"))) {
    for (const specifier of runtimeSpecifiers(readFileSync(file, "utf8"))) {
      if (specifier.startsWith("node:") || specifier.startsWith(".")) continue;
      needed.set(packageName(specifier), relative(ROOT, file));
    }
  }

  it("finds the app's imports (the scan works)", () => {
    expect([...needed.keys()]).toEqual(expect.arrayContaining(["@slack/bolt", "zod", "pino"]));
  });

  it("every package src/ imports is in dependencies, not only devDependencies", () => {
    const dependencies = Object.keys(pkg.dependencies ?? {});
    for (const [name, file] of needed) {
      expect(dependencies, `${name} (imported by ${file})`).toContain(name);
    }
  });

  it("package-lock.json matches package.json's dependencies and installs them in production", () => {
    // npm ci refuses a lock file out of step with package.json.
    expect(lock.packages[""]?.dependencies).toEqual(pkg.dependencies);
    for (const name of needed.keys()) {
      const entry = lock.packages[`node_modules/${name}`];
      expect(entry, `${name} in package-lock.json`).toBeDefined();
      expect(entry?.dev, `${name} is not dev-only in the lock`).not.toBe(true);
    }
  });
});

describe(".dockerignore", () => {
  const patterns = read(".dockerignore")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));

  it.each([".env", "node_modules", "data", ".git", "test", "manifests"])("excludes %s", (name) => {
    expect(patterns).toContain(name);
    expect(patterns).not.toContain(`!${name}`);
  });

  it("lets in everything the Dockerfile copies", () => {
    for (const kept of ["package.json", "package-lock.json", "src", "src/", "*.json", "*.ts"]) {
      expect(patterns).not.toContain(kept);
    }
    expect(patterns.some((p) => /^(\*|\*\*|src\/?\*?\*?)$/.test(p))).toBe(false);
  });
});

/**
 * compose.yaml read as text (no YAML parser in the dependencies): the lines of a top-level
 * section's entry, e.g. `services` → `bot`, up to the next entry at the same indentation.
 */
function composeBlock(text: string, path: string[]): string {
  let lines = text.split("\n");
  for (const [depth, key] of path.entries()) {
    const indent = " ".repeat(depth * 2);
    const start = lines.indexOf(`${indent}${key}:`);
    if (start === -1) return "";
    const rest = lines.slice(start + 1);
    const end = rest.findIndex(
      (line) => line.trim() !== "" && !/^\s*#/.test(line) && !line.startsWith(`${indent}  `),
    );
    lines = end === -1 ? rest : rest.slice(0, end);
  }
  return lines.filter((line) => !/^\s*#/.test(line)).join("\n");
}

describe("compose.yaml", () => {
  const text = read("compose.yaml");
  const service = (name: string) => composeBlock(text, ["services", name]);

  it("runs Redis with a redis-cli ping healthcheck", () => {
    const redis = service("redis");
    expect(redis).toMatch(/^\s+image: redis:7-alpine$/m);
    expect(redis).toMatch(/test: \["CMD", "redis-cli", "ping"\]/);
  });

  it("runs the bot in HTTP mode: 2 replicas, .env, the shared Redis, after Redis is healthy", () => {
    const bot = service("bot");
    expect(bot).toMatch(/^\s+build: \.$/m);
    expect(bot).toMatch(/^\s+env_file: \.env$/m);
    expect(bot).toMatch(/^\s+STORE_URL: redis:\/\/redis:6379$/m);
    expect(bot).toMatch(/^\s+SLACK_APP_TOKEN: ""$/m);
    expect(bot).toMatch(/^\s+deploy:\n\s+replicas: 2$/m);
    expect(bot).toMatch(/^\s+depends_on:\n\s+redis:\n\s+condition: service_healthy$/m);
    // Two replicas cannot publish one host port: the proxy does.
    expect(bot).not.toMatch(/^\s+ports:/m);
    expect(bot).not.toMatch(/^\s+profiles:/m);
  });

  it("puts an nginx proxy on port 3000 in front of the replicas", () => {
    const proxy = service("proxy");
    expect(proxy).toMatch(/^\s+image: nginx:alpine$/m);
    expect(proxy).toMatch(/^\s+- "3000:80"$/m);
    const conf = composeBlock(text, ["configs", "proxy-conf"]);
    expect(conf).toMatch(/proxy_pass \$\$\w+;/);
    expect(conf).toContain("http://bot:3000");
    // Compose interpolates `$name`: every nginx variable must be written `$$name`.
    expect(conf.replace(/\$\$/g, "")).not.toContain("$");
  });

  it("has a Socket Mode variant under the socket profile: one replica, the shared Redis", () => {
    const socket = service("bot-socket");
    expect(socket).toMatch(/^\s+profiles: \[socket\]$/m);
    expect(socket).toMatch(/^\s+env_file: \.env$/m);
    expect(socket).toMatch(/^\s+STORE_URL: redis:\/\/redis:6379$/m);
    expect(socket).toMatch(/^\s+deploy:\n\s+replicas: 1$/m);
    // SLACK_APP_TOKEN comes from .env; blanking it here would force HTTP mode.
    expect(socket).not.toMatch(/SLACK_APP_TOKEN/);
  });

  it("keeps /metrics off the public address: a port of its own, published nowhere", () => {
    for (const name of ["bot", "bot-socket"]) {
      expect(service(name), name).toMatch(/^\s+METRICS_PORT: "9100"$/m);
      expect(service(name), name).not.toMatch(/9100:/);
    }
    expect(service("proxy")).not.toMatch(/9100/);
  });

  it("holds no secret values", () => {
    expect(text).not.toMatch(/x(oxb|app)-[\w-]{8,}/);
    expect(text).not.toMatch(/^\s+(SLACK_BOT_TOKEN|SLACK_SIGNING_SECRET|NOTE_TAKER_API_KEY):/m);
  });
});
