import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it, onTestFinished } from "vitest";
import { SOCKET_MANIFEST } from "../support/fake-slack/app-manifest.ts";
import { createFakeSlack } from "../support/fake-slack/create-fake-slack.ts";
import { childEnv } from "../support/helpers/child-env.ts";
import { eventually } from "../support/helpers/eventually.ts";
import {
  manifestValidator,
  withDocumentedTypesAsString,
} from "../support/helpers/manifest-schema.ts";

/*
 * Issue 24: `slack run`. The Slack CLI reads .slack/hooks.json, runs its `get-hooks` hook
 * (here @slack/cli-hooks' slack-cli-get-hooks), lays the file's own entries over the answer,
 * then runs the hooks it needs: `get-manifest` to create the development app, `start` with
 * the app's tokens in the environment. This test does the same, as the CLI's source does it
 * (slackapi/slack-cli: internal/shared/clients.go InitSDKConfigFromJSON, goutils.MergeJSON,
 * internal/hooks/hook_executor_v2.go, internal/pkg/platform/localserver.go StartDelegate),
 * each hook through `sh -c` in the repository.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const run = promisify(execFile);

/** A hook command run as the CLI runs it: through the shell, in the project's folder. */
const hook = async (command: string, args: string[] = []) =>
  (await run("sh", ["-c", [command, ...args].join(" ")], { cwd: ROOT, env: childEnv() })).stdout;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Go's json.Unmarshal of the project's file over the defaults: objects merge, the rest is replaced. */
function merged(defaults: Json, custom: Json): Json {
  const out: Json = { ...defaults };
  for (const [key, value] of Object.entries(custom)) {
    const base = out[key];
    out[key] = isObject(base) && isObject(value) ? merged(base, value) : value;
  }
  return out;
}

/** What the CLI works with: the get-hooks answer with .slack/hooks.json laid over it. */
async function loadSdkConfig() {
  const file = JSON.parse(readFileSync(`${ROOT}/.slack/hooks.json`, "utf8")) as {
    hooks: Record<string, string>;
  };
  const answer = JSON.parse(await hook(file.hooks["get-hooks"] ?? "")) as Json;
  return { file, answer, config: merged(answer, file) as { hooks: Record<string, string> } & Json };
}

// Asked once for the file's tests (each get-hooks run is an npx start, ~0.5 s).
let loaded: ReturnType<typeof loadSdkConfig> | undefined;
const sdkConfig = () => {
  loaded ??= loadSdkConfig();
  return loaded;
};

describe("the Slack CLI's hooks (slack run)", () => {
  it("get-hooks is @slack/cli-hooks' own, answering with the hooks and the SDK-managed socket", async () => {
    const { file, answer } = await sdkConfig();
    expect(file.hooks["get-hooks"]).toBe(
      "npx -q --no-install -p @slack/cli-hooks slack-cli-get-hooks",
    );
    expect(answer).toMatchObject({
      hooks: {
        "get-manifest": expect.any(String),
        start: expect.any(String),
        doctor: expect.any(String),
        "check-update": expect.any(String),
      },
      config: {
        "protocol-version": ["message-boundaries"],
        "sdk-managed-connection-enabled": true,
      },
      runtime: "node",
    });
  });

  it("get-manifest serves the Socket Mode manifest, valid against Slack's schema, in the CLI's protocol", async () => {
    const { config } = await sdkConfig();
    const command = config.hooks["get-manifest"] ?? "";
    // The CLI negotiates message boundaries (protocol-version above) and reads only what
    // is between them.
    const boundary = randomBytes(32).toString("hex");
    const out = await hook(command, ["--protocol=message-boundaries", `--boundary=${boundary}`]);
    const inside = out.split(boundary);
    expect(inside).toHaveLength(3);
    const manifest = JSON.parse(inside[1] ?? "");
    const validate = manifestValidator();
    const ok = validate(withDocumentedTypesAsString(manifest));
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
    expect(manifest.settings.socket_mode_enabled).toBe(true);
    expect(manifest).toEqual(
      JSON.parse(readFileSync(`${ROOT}/manifests/manifest.socket.json`, "utf8")),
    );
    // The default protocol: the manifest alone on stdout.
    expect(JSON.parse(await hook(command))).toEqual(manifest);
  });

  it("restarts on changes to src/*.ts and reinstalls on changes to the Socket Mode manifest", async () => {
    const { config } = await sdkConfig();
    expect(config.config).toMatchObject({
      watch: {
        app: { "filter-regex": "\\.ts$", paths: ["src"] },
        manifest: { paths: ["manifests/manifest.socket.json"] },
      },
      "protocol-version": ["message-boundaries"],
      "sdk-managed-connection-enabled": true,
    });
  });

  it("start runs the bot in Socket Mode with the tokens the CLI hands over (SLACK_CLI_XOXB / SLACK_CLI_XAPP)", async () => {
    const { config } = await sdkConfig();
    const slack = await createFakeSlack({ socketMode: true, manifest: SOCKET_MANIFEST });
    onTestFinished(() => slack.close());
    const child = spawn("sh", ["-c", config.hooks.start ?? ""], {
      cwd: ROOT,
      // Its own process group: the shell and the bot stop together.
      detached: true,
      env: {
        ...childEnv(),
        SLACK_CLI_XOXB: slack.botToken,
        SLACK_CLI_XAPP: slack.socket?.appToken ?? "",
        // Set and empty: a .env in this clone (read by the hook) cannot fill them in.
        SLACK_BOT_TOKEN: "",
        SLACK_APP_TOKEN: "",
        SLACK_API_URL: slack.apiUrl,
        NOTE_TAKER_BASE_URL: "http://127.0.0.1:4010/api/v1/third-party/note-taker",
        NOTE_TAKER_API_KEY: "test-api-key",
        STORE_URL: "memory://",
        PORT: "0",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise((resolve) => child.once("close", resolve));
    onTestFinished(async () => {
      if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      await exited;
    });
    const lines: string[] = [];
    createInterface({ input: child.stdout }).on("line", (line) => lines.push(line));
    createInterface({ input: child.stderr }).on("line", (line) => lines.push(line));
    const started = await eventually(
      () => lines.find((line) => line.includes('"msg":"meeting-notes started"')),
      (line) => line !== undefined,
      { what: "the bot started by the start hook", context: () => lines.join("\n") },
    );
    expect(started).toContain('"mode":"socket"');
    expect(slack.socket?.connections.length).toBe(1);
    expect(slack.callsTo("auth.test").length).toBeGreaterThan(0);
    if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
    await exited;
  });
});
