import type { ServerResponse } from "node:http";
import type {
  CodedError,
  Installation,
  InstallProvider,
  InstallURLOptions,
  StateStore,
} from "@slack/oauth";
import { OAUTH_INSTALL_PATH, OAUTH_REDIRECT_PATH } from "../../config-schema.ts";
import type { Route } from "../../http/http-surface.ts";
import type { Logger } from "../../logger.ts";
import { installKeyOfInstallation } from "./installation-store.ts";
import { SpentStateError, stateCookie } from "./oauth-state.ts";

/**
 * `GET /slack/install` and `GET /slack/oauth_redirect`, served by the app's own HTTP server
 * in both modes (Socket Mode too: only the browser comes here, never Slack's events).
 * The install path makes a state (oauth-state.ts), sets it in a SameSite=Lax cookie and
 * sends the browser to Slack's consent page — ours rather than the installer's
 * `handleInstallPath`, whose cookie has no SameSite. `@slack/oauth`'s InstallProvider
 * handles the redirect: it checks the state against the cookie and claims it (once),
 * exchanges the code with `oauth.v2.access` and stores the installation. The pages the
 * person sees are ours: one plain sentence, never an error's details (those go to the
 * log, without tokens).
 */
export function installRoutes(o: {
  provider: InstallProvider;
  /** The state store the provider checks states with. */
  states: StateStore;
  /** The scopes and redirect URL of the consent page. */
  installOptions: InstallURLOptions;
  logger: Logger;
  /** Told of each install stored (a reinstall replaces what was kept of the old one). */
  onInstalled?: (install: string) => void;
}): Route[] {
  const install: Route = {
    path: OAUTH_INSTALL_PATH,
    methods: ["GET"],
    handle: async (_req, res) => {
      try {
        const state = await o.states.generateStateParam(o.installOptions, new Date());
        const url = await o.provider.generateInstallUrl(o.installOptions, true, state);
        res.writeHead(302, {
          location: url,
          "set-cookie": stateCookie(state),
          "cache-control": "no-store",
        });
        res.end();
      } catch (error) {
        o.logger.error({ err: error }, "the install page could not be served");
        if (!res.headersSent) page(res, 500, FAILED);
      }
    },
  };
  const redirect: Route = {
    path: OAUTH_REDIRECT_PATH,
    methods: ["GET"],
    handle: (req, res) =>
      o.provider.handleCallback(req, res, {
        success: (installation: Installation) => {
          const key = installKeyOfInstallation(installation);
          o.onInstalled?.(key);
          o.logger.info({ install: key }, "the app was installed");
          page(res, 200, INSTALLED);
        },
        failure: (error: CodedError) => {
          if (error instanceof SpentStateError) {
            o.logger.warn("an install redirect came back with a state already used");
            page(res, 400, SPENT);
            return;
          }
          const declined = /cancelled/i.test(error.message);
          o.logger.warn(
            { code: error.code, reason: error.message },
            declined ? "an install was declined" : "an install failed",
          );
          page(res, declined ? 200 : 400, declined ? DECLINED : FAILED);
        },
      }),
  };
  return [install, redirect];
}

const INSTALLED =
  "Meeting Notes is installed. Invite it to a channel (/invite @Meeting Notes) and upload a recording there.";
const DECLINED = "Meeting Notes was not installed: the install was cancelled.";
const SPENT = "This install link was already used: start again from the install page.";
const FAILED =
  "Meeting Notes could not be installed. Start again from the install link; if it fails again, tell whoever runs the bot.";

/** A small page with one sentence (no script, nothing from the request echoed back). */
function page(res: ServerResponse, status: number, sentence: string): void {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Meeting Notes</title></head><body><p>${sentence}</p></body></html>`;
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  res.end(body);
}
