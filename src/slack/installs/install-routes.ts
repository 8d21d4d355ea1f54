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
 * The install page is ours, not the installer's `handleInstallPath`, whose state cookie has no
 * SameSite; `@slack/oauth` handles the redirect. Pages say one sentence, never an error's details.
 */
export function installRoutes(o: {
  provider: InstallProvider;
  states: StateStore;
  installOptions: InstallURLOptions;
  logger: Logger;
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

/** No script, nothing from the request echoed back. */
function page(res: ServerResponse, status: number, sentence: string): void {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Meeting Notes</title></head><body><p>${sentence}</p></body></html>`;
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  res.end(body);
}
