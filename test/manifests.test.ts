import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SHORTCUTS, STEP_CALLBACK_ID } from "../src/slack/ids.ts";
import { BOT_SCOPES } from "../src/slack/installs/bot-scopes.ts";
import { COMMAND } from "../src/slack/listeners/index.ts";
import { installedApp } from "../support/fake-slack/app-manifest.ts";
import { TYPES_MISSING_FROM_SCHEMA } from "../support/fake-slack/manifest-functions.ts";
import {
  exampleManifest,
  manifestValidator,
  withDocumentedTypesAsString,
} from "../support/helpers/manifest-schema.ts";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const json = (path: string) => JSON.parse(readFileSync(here(path), "utf8"));

const typeOf = ([name, p]: [string, unknown]) => [name, (p as { type: string }).type];

describe("Slack app manifests", () => {
  const validate = manifestValidator();

  it("the schema accepts Slack's own example and refuses a broken manifest", () => {
    expect(validate(exampleManifest())).toBe(true);
    expect(validate({ display_information: {} })).toBe(false);
  });

  it("forgives only step parameter types Slack has and its published schema lacks", () => {
    const schema = json("fixtures/slack-manifest-schema/schemas/manifest.schema.2.0.0.json");
    const enumOf = schema.definitions["app-manifests.v1.hermes.types.type"].properties.type.enum;
    for (const type of TYPES_MISSING_FROM_SCHEMA) expect(enumOf, type).not.toContain(type);
    expect(TYPES_MISSING_FROM_SCHEMA).toContain("slack#/types/file_id");
  });

  it.each(["manifest.http.json", "manifest.socket.json", "manifest.oauth.json"])(
    "%s validates against Slack's schema",
    (name) => {
      const manifest = json(`../manifests/${name}`);
      // Only a parameter type Slack documents that the vendored schema's enum lacks
      // (`slack#/types/file_id`: the step's recording and DOCX) is forgiven, as the fake does:
      // read as a string, the manifest must pass the schema whole.
      const ok = validate(withDocumentedTypesAsString(manifest));
      expect(validate.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
    },
  );

  it("offers the Workflow Builder step the bot runs, in every manifest, each org-ready as Slack requires", () => {
    // docs.slack.dev/reference/app-manifest: `functions.<callback_id>` with its input and
    // output parameters; a Bolt app's step runs in the app (`function_runtime: remote`) and
    // hears `function_executed`; "The app must opt-in to org-ready apps to be able to add the
    // custom step to its manifest" (docs.slack.dev/tools/bolt-js/tutorials/custom-steps).
    for (const name of ["manifest.http.json", "manifest.socket.json", "manifest.oauth.json"]) {
      const manifest = json(`../manifests/${name}`);
      expect(manifest.settings.org_deploy_enabled, name).toBe(true);
      expect(manifest.settings.function_runtime).toBe("remote");
      const step = manifest.functions[STEP_CALLBACK_ID];
      expect(step.title).toBe("Make meeting notes");
      const inputs = step.input_parameters;
      expect(Object.fromEntries(Object.entries(inputs.properties).map(typeOf))).toEqual({
        recording: "slack#/types/file_id",
        channel: "slack#/types/channel_id",
        user: "slack#/types/user_context",
        participants: "array",
        context: "string",
      });
      expect(inputs.properties.participants.items).toEqual({ type: "slack#/types/user_id" });
      expect(inputs.required.sort()).toEqual(["channel", "recording", "user"]);
      // The step completes as soon as its thread is open (its token lives 15 minutes, the
      // job as long as a person takes to name the speakers): the thread's link is all there is.
      const outputs = step.output_parameters;
      expect(Object.fromEntries(Object.entries(outputs.properties).map(typeOf))).toEqual({
        thread_link: "string",
      });
      expect(outputs.required).toEqual(["thread_link"]);
    }
  });

  it("the fake Slack refuses a manifest with a step that is not org-ready, as Slack does", () => {
    const manifest = json("../manifests/manifest.socket.json");
    expect(() => installedApp(manifest)).not.toThrow();
    const notOrgReady = {
      ...manifest,
      settings: { ...manifest.settings, org_deploy_enabled: false },
    };
    expect(() => installedApp(notOrgReady)).toThrow(/org_deploy_enabled/);
    const { function_runtime: _runtime, ...noRuntime } = manifest.settings;
    expect(() => installedApp({ ...manifest, settings: noRuntime })).toThrow(/function_runtime/);
    // Without the step, an app need not be org-ready.
    const { functions: _step, ...plain } = notOrgReady;
    expect(installedApp(plain).functions.size).toBe(0);
  });

  it("the OAuth manifest is the HTTP one with installs by OAuth switched on, and asks the same scopes", () => {
    const http = json("../manifests/manifest.http.json");
    const oauth = json("../manifests/manifest.oauth.json");
    expect(oauth.oauth_config.redirect_urls).toEqual([
      "https://your-host.example.com/slack/oauth_redirect",
    ]);
    expect(oauth.settings).toMatchObject({ token_rotation_enabled: true });
    const { redirect_urls: _urls, ...oauthConfig } = oauth.oauth_config;
    expect({
      ...oauth,
      oauth_config: oauthConfig,
      settings: { ...oauth.settings, token_rotation_enabled: false },
    }).toEqual(http);
    // What /slack/install asks for (the app runs from src/ alone, so it keeps its own copy).
    expect([...BOT_SCOPES].sort()).toEqual([...oauth.oauth_config.scopes.bot].sort());
  });

  it("subscribes every org-ready manifest to team_access_revoked, which forgets a workspace removed from the org", () => {
    // "sent to your organization-ready app when your token can no longer access a workspace
    // in that organization"; "Subscribe to this event via the Events API"
    // (https://api.slack.com/events/team_access_revoked).
    const names = ["manifest.http.json", "manifest.socket.json", "manifest.oauth.json"];
    const orgReady = names.filter(
      (name) => json(`../manifests/${name}`).settings.org_deploy_enabled,
    );
    expect(orgReady).toEqual(names);
    for (const name of orgReady) {
      const events = json(`../manifests/${name}`).settings.event_subscriptions.bot_events;
      expect(events, name).toContain("team_access_revoked");
    }
  });

  it("asks for what the bot uses and nothing more, in both modes", () => {
    for (const name of ["manifest.http.json", "manifest.socket.json"]) {
      const manifest = json(`../manifests/${name}`);
      expect(manifest.features.slash_commands[0].command).toBe(COMMAND);
      expect(manifest.oauth_config.scopes.bot.sort()).toEqual(
        [
          "channels:history",
          "chat:write",
          "commands",
          "files:read",
          "files:write",
          "groups:history",
          "users:read",
          // conversations.members (who may do what): public and private channels.
          "channels:read",
          "groups:read",
          // A recording sent to the bot in a direct message.
          "im:history",
          // Review before posting: open the direct message the note is reviewed in (issue 26).
          "im:write",
          // The note as a canvas, shared with the channel, edited by Regenerate (issue 16).
          "canvases:write",
        ].sort(),
      );
      expect(manifest.settings.event_subscriptions.bot_events.sort()).toEqual(
        [
          "app_home_opened",
          "app_uninstalled",
          "file_shared",
          "message.channels",
          "message.groups",
          "message.im",
          "tokens_revoked",
          // The Workflow Builder step (issue 28).
          "function_executed",
          // An org-ready app's org-wide install losing a workspace: its data goes.
          "team_access_revoked",
        ].sort(),
      );
      expect(manifest.settings.interactivity.is_enabled).toBe(true);
    }
    expect(json("../manifests/manifest.socket.json").settings.socket_mode_enabled).toBe(true);
    expect(json("../manifests/manifest.http.json").settings.socket_mode_enabled).toBe(false);
  });

  it("declares the message shortcut the bot answers, in both modes, with the scope it needs", () => {
    // docs.slack.dev/reference/app-manifest: `features.shortcuts` items name a `type`
    // (`message` puts it in a message's menu) and the `callback_id` Slack sends back; the
    // `commands` scope lets an app "add shortcuts and/or slash commands"
    // (docs.slack.dev/reference/scopes/commands).
    for (const name of ["manifest.http.json", "manifest.socket.json"]) {
      const manifest = json(`../manifests/${name}`);
      expect(manifest.features.shortcuts).toEqual([
        expect.objectContaining({
          name: "Make meeting notes",
          type: "message",
          callback_id: SHORTCUTS.makeNotes,
        }),
      ]);
      expect(manifest.oauth_config.scopes.bot).toContain("commands");
      // Mentions are read from the message events the bot already gets: no app_mention.
      expect(manifest.oauth_config.scopes.bot).not.toContain("app_mentions:read");
      expect(manifest.settings.event_subscriptions.bot_events).not.toContain("app_mention");
    }
  });

  it("lets people send the bot a recording in a direct message, as docs/features.md promises", () => {
    // docs.slack.dev/reference/app-manifest: `messages_tab_enabled` turns the App Home's
    // Messages tab on; `messages_tab_read_only_enabled` "specifies whether or not the users
    // can send messages to your app in the Messages tab" — true would take the composer away.
    for (const name of ["manifest.http.json", "manifest.socket.json"]) {
      const manifest = json(`../manifests/${name}`);
      expect(manifest.features.app_home).toMatchObject({
        messages_tab_enabled: true,
        messages_tab_read_only_enabled: false,
      });
      expect(manifest.oauth_config.scopes.bot).toContain("im:history");
      expect(manifest.settings.event_subscriptions.bot_events).toContain("message.im");
    }
  });

  it("describes what the bot takes as docs/features.md does: DMs, and up to 1 GB with FFmpeg", () => {
    const descriptions = ["manifest.http.json", "manifest.socket.json"].map(
      (name) => json(`../manifests/${name}`).display_information.long_description as string,
    );
    expect(new Set(descriptions).size).toBe(1);
    const [text = ""] = descriptions;
    expect(text).toContain("direct message");
    expect(text).toContain("mp3, mp4, wav, m4a, ogg, flac, aac, opus and webm up to 300 MB");
    expect(text).toMatch(/FFmpeg[^.]*any other audio or video up to Slack's 1 GB/);
    expect(text).not.toMatch(/nine formats|; up to 300 MB\)/);
  });
});
