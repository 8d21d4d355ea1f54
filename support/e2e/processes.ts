import { mkdir } from "node:fs/promises";
import { createEmulator } from "../emulator/create-emulator.ts";
import {
  installedApp,
  type ManifestSource,
  OAUTH_MANIFEST,
  SOCKET_MANIFEST,
} from "../fake-slack/app-manifest.ts";
import { createFakeSlack, type StrictOption } from "../fake-slack/create-fake-slack.ts";
import { type AppProcess, spawnApp } from "../helpers/spawn-app.ts";
import { makeTempDir } from "../helpers/temp-files.ts";
import { type InstallChoice, installThroughApp, installTokens, oauthEnv } from "./oauth-install.ts";
import { ALICE, BOB, CHANNEL, SIGNING_SECRET, type SlackMode, TEST_RATE_SCALE } from "./stack.ts";

/**
 * Fake Slack and the emulator in the test process, the app in child processes started
 * with `app(env)`: for shutdown and multi-replica tests.
 */
export async function startProcesses(
  options: {
    manifest?: ManifestSource;
    strict?: StrictOption;
    rateScale?: number;
    /** The apps connect to the fake's Socket Mode server instead of taking HTTP requests. */
    socketMode?: boolean;
    /**
     * `oauth`: the fake installs manifests/manifest.oauth.json and the apps get the OAuth
     * settings instead of SLACK_BOT_TOKEN; a workspace installs them with `install`.
     */
    mode?: SlackMode;
  } = {},
) {
  const temp = await makeTempDir("mn-proc-");
  // The apps run in other processes; the fake, in this one, holds them to the manifest
  // (default manifests/manifest.http.json) and Slack's other rules unless told otherwise.
  const {
    rateScale = TEST_RATE_SCALE,
    socketMode = false,
    mode = "single",
    ...fakeOptions
  } = options;
  const fake = await createFakeSlack({
    ...(socketMode ? { socketMode, manifest: SOCKET_MANIFEST } : {}),
    ...(mode === "oauth" ? { manifest: OAUTH_MANIFEST } : {}),
    ...fakeOptions,
    knobs: { rateScale },
  });
  const emulator = await createEmulator();
  fake.addUser({ id: ALICE, name: "alice", real_name: "Alice Nguyen", locale: "en-US" });
  fake.addUser({ id: BOB, name: "bob", real_name: "Bob Tran", locale: "en-US" });
  fake.addChannel({ id: CHANNEL, name: "weekly-sync" });
  const apps: AppProcess[] = [];
  const oauth =
    mode === "oauth"
      ? oauthEnv(fake, installedApp(options.manifest ?? OAUTH_MANIFEST).redirectUrls[0] ?? "")
      : undefined;
  const env = {
    ...(oauth === undefined ? { SLACK_BOT_TOKEN: fake.botToken } : oauth.env),
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    // Set: the app takes Socket Mode (the signing secret is then unused).
    ...(fake.socket === undefined ? {} : { SLACK_APP_TOKEN: fake.socket.appToken }),
    SLACK_API_URL: fake.apiUrl,
    NOTE_TAKER_BASE_URL: emulator.baseUrl,
    NOTE_TAKER_API_KEY: emulator.apiKey,
    STORE_URL: `sqlite://${temp.dir}/app.sqlite`,
    POLL_INITIAL_MS: "10",
    POLL_MAX_MS: "40",
    LOG_LEVEL: "debug",
    // Scaled as the fake's tiers are (see TEST_RATE_SCALE).
    SLACK_RATE_SHARE: String(rateScale),
  };
  return {
    fake,
    emulator,
    temp,
    env,
    async app(overrides: Record<string, string> = {}) {
      // A TMPDIR per process, as each container has: with Redis the temp folder and journal
      // are the store's own folder in TMPDIR, which replicas of one store on one machine
      // would share (a starting process clears it of files no job of its store names).
      const tmp = `${temp.dir}/tmp-${apps.length}`;
      await mkdir(tmp, { recursive: true });
      const app = await spawnApp({ ...env, TMPDIR: tmp, ...overrides });
      apps.push(app);
      return app;
    },
    /**
     * OAuth mode: a person installs the app (default the fake's default workspace) from
     * `app`'s install page, through Slack's consent page; throws unless it was installed.
     */
    async install(app: AppProcess, choice: InstallChoice = { team: fake.teamId }) {
      const installed = await installThroughApp(`http://127.0.0.1:${app.port}`, fake, choice);
      if (installed.status !== 200) {
        throw new Error(`the install answered ${installed.status}: ${installed.page}`);
      }
    },
    /** Every secret the apps hold (bot tokens and, in OAuth mode, the OAuth secrets too). */
    secrets(): string[] {
      const tokens = oauth === undefined ? [fake.botToken] : installTokens(fake, fake.teamId);
      const extra = oauth === undefined ? [] : Object.values(oauth.secrets);
      return [SIGNING_SECRET, emulator.apiKey, ...tokens, ...extra];
    },
    async stop() {
      await Promise.all(apps.map((a) => a.stop("SIGKILL")));
      await emulator.close();
      await fake.close();
      await temp.cleanup();
    },
  };
}
