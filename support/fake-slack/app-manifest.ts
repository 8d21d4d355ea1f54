import { readFileSync } from "node:fs";
import { z } from "zod";
import { type FunctionDefinition, readFunctions } from "./manifest-functions.ts";

/** The manifest the stack installs unless told otherwise (HTTP mode). */
export const HTTP_MANIFEST = new URL("../../manifests/manifest.http.json", import.meta.url);
/** The Socket Mode manifest (same scopes and App Home, no request URLs). */
export const SOCKET_MANIFEST = new URL("../../manifests/manifest.socket.json", import.meta.url);
/** The manifest of installs by OAuth (redirect URL, org-wide installs, token rotation). */
export const OAUTH_MANIFEST = new URL("../../manifests/manifest.oauth.json", import.meta.url);

/**
 * What the fake reads of an app manifest (https://docs.slack.dev/reference/app-manifest):
 * the bot scopes the install grants (`oauth_config.scopes.bot`), the App Home's Messages
 * tab settings (`features.app_home`) and the shortcuts people can use
 * (`features.shortcuts`: `type` `message` or `global`, and the `callback_id` Slack sends);
 * for installs by OAuth, the user scopes, redirect URLs (`oauth_config.redirect_urls`) and
 * `settings.org_deploy_enabled` / `settings.token_rotation_enabled`; the events an app must
 * subscribe to before Slack sends them (`settings.event_subscriptions.bot_events`, read for
 * `team_access_revoked` only: the fake sends every other event as before); and the custom steps
 * the app offers Workflow Builder (`functions`, manifest-functions.ts), which Slack takes only
 * from an org-ready app run by the app itself ({@link stepsRefusal}).
 * Everything else is the manifest test's business.
 */
const manifestSchema = z.object({
  features: z
    .object({
      shortcuts: z
        .array(z.object({ type: z.enum(["message", "global"]), callback_id: z.string() }))
        .optional(),
      app_home: z
        .object({
          messages_tab_enabled: z.boolean().optional(),
          messages_tab_read_only_enabled: z.boolean().optional(),
        })
        .optional(),
    })
    .optional(),
  oauth_config: z
    .object({
      redirect_urls: z.array(z.string()).optional(),
      scopes: z
        .object({ bot: z.array(z.string()).optional(), user: z.array(z.string()).optional() })
        .optional(),
    })
    .optional(),
  settings: z
    .object({
      org_deploy_enabled: z.boolean().optional(),
      token_rotation_enabled: z.boolean().optional(),
      function_runtime: z.string().optional(),
      event_subscriptions: z.object({ bot_events: z.array(z.string()).optional() }).optional(),
    })
    .optional(),
  functions: z.unknown().optional(),
});

/** The install as the fake enforces it. */
export interface InstalledApp {
  /** Scopes of the bot token, in the manifest's order. */
  botScopes: readonly string[];
  /**
   * Whether a person can write to the app in its DM (the App Home's Messages tab): not when
   * the tab is off (`messages_tab_enabled: false`) or read-only
   * (`messages_tab_read_only_enabled: true`), https://docs.slack.dev/surfaces/app-home
   * ("Messages tab").
   */
  peopleCanMessage: boolean;
  /** The shortcuts the app declares: only these reach it (`message_action`, `shortcut`). */
  shortcuts: readonly { type: "message" | "global"; callbackId: string }[];
  /** User scopes an install may ask for (`oauth_config.scopes.user`). */
  userScopes: readonly string[];
  /** Where Slack may send the installer back (`oauth_config.redirect_urls`). */
  redirectUrls: readonly string[];
  /** Whether an Enterprise Grid admin may install it org-wide. */
  orgDeployEnabled: boolean;
  /** Whether its tokens expire and are refreshed (token rotation). */
  tokenRotationEnabled: boolean;
  /** The bot events it subscribes to (`settings.event_subscriptions.bot_events`). */
  botEvents: readonly string[];
  /** Custom steps for Workflow Builder, by callback id. */
  functions: ReadonlyMap<string, FunctionDefinition>;
}

/** A manifest: its path (or URL), or its parsed JSON. */
export type ManifestSource = string | URL | Record<string, unknown>;

/** Reads the install a manifest describes; a manifest that is not JSON fails loudly. */
export function installedApp(source: ManifestSource): InstalledApp {
  const json =
    typeof source === "string" || source instanceof URL
      ? (JSON.parse(readFileSync(source, "utf8")) as unknown)
      : source;
  const manifest = manifestSchema.parse(json);
  const refusal = stepsRefusal(manifest);
  if (refusal !== undefined) throw new Error(`fake Slack: Slack refuses this manifest: ${refusal}`);
  const home = manifest.features?.app_home;
  // The fake enforces what the manifest states; a key left out restricts nothing here.
  const tabOn = home?.messages_tab_enabled ?? true;
  const readOnly = home?.messages_tab_read_only_enabled ?? false;
  return {
    botScopes: manifest.oauth_config?.scopes?.bot ?? [],
    peopleCanMessage: tabOn && !readOnly,
    shortcuts: (manifest.features?.shortcuts ?? []).map((s) => ({
      type: s.type,
      callbackId: s.callback_id,
    })),
    userScopes: manifest.oauth_config?.scopes?.user ?? [],
    redirectUrls: manifest.oauth_config?.redirect_urls ?? [],
    orgDeployEnabled: manifest.settings?.org_deploy_enabled ?? false,
    tokenRotationEnabled: manifest.settings?.token_rotation_enabled ?? false,
    botEvents: manifest.settings?.event_subscriptions?.bot_events ?? [],
    functions: readFunctions(manifest.functions),
  };
}

/**
 * Why Slack takes no custom step from this manifest, if it does not: "The app must opt-in to
 * org-ready apps to be able to add the custom step to its manifest" — `settings.
 * org_deploy_enabled` `true` — and a Bolt app's steps run in the app, `settings.
 * function_runtime` `remote` (https://docs.slack.dev/tools/bolt-js/tutorials/custom-steps,
 * "Opt in to org-ready apps", and "Adding steps for existing apps": "you will also need to add
 * the function_runtime property"; bolt-js docs/english/tutorials/custom-steps.md).
 */
function stepsRefusal(manifest: z.infer<typeof manifestSchema>): string | undefined {
  const functions = manifest.functions;
  if (functions === undefined || functions === null) return undefined;
  if (typeof functions === "object" && Object.keys(functions).length === 0) return undefined;
  if (manifest.settings?.org_deploy_enabled !== true) {
    return "functions (custom steps) need settings.org_deploy_enabled true (an org-ready app)";
  }
  if (manifest.settings.function_runtime === undefined) {
    return 'functions need settings.function_runtime ("remote": run by the app)';
  }
  return undefined;
}
