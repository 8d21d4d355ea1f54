import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { signSlackRequest } from "../../support/fake-slack/slack-request.ts";

/**
 * The app's HTTP manifest (or, `mode: "socket"`, its Socket Mode one, as docs/oauth-installs.md has
 * Socket Mode installs by OAuth set it up), with what an OAuth install needs (redirect URLs)
 * and `extra`: without its Workflow step (`step: false`, as an app that is not org-ready
 * must be), or without some bot events (`dropEvents`).
 */
export function oauthManifest(extra: {
  settings?: Record<string, unknown>;
  functions?: Record<string, unknown>;
  userScopes?: string[];
  mode?: "http" | "socket";
  step?: false;
  dropEvents?: string[];
}): Record<string, unknown> {
  const file = `../../manifests/manifest.${extra.mode ?? "http"}.json`;
  const base = JSON.parse(readFileSync(new URL(file, import.meta.url), "utf8")) as Record<
    string,
    Record<string, unknown>
  >;
  const oauth = base.oauth_config as { scopes: Record<string, unknown> };
  const subscriptions = base.settings?.event_subscriptions as { bot_events: string[] };
  const events = {
    ...subscriptions,
    bot_events: subscriptions.bot_events.filter((e) => !extra.dropEvents?.includes(e)),
  };
  if (extra.step === false) delete base.functions;
  return {
    ...base,
    oauth_config: {
      ...oauth,
      redirect_urls: [REDIRECT],
      scopes: { ...oauth.scopes, ...(extra.userScopes ? { user: extra.userScopes } : {}) },
    },
    settings: { ...base.settings, event_subscriptions: events, ...extra.settings },
    ...(extra.functions ? { functions: extra.functions } : {}),
  };
}

export const REDIRECT = "https://notes.example.com/slack/oauth_redirect";
export const BOT_SCOPES = (oauthManifest({}).oauth_config as { scopes: { bot: string[] } }).scopes
  .bot;

/**
 * The authorize URL an app (Bolt's InstallProvider) sends the browser to: on the Slack whose
 * Web API it calls (the fake's origin, as `https://slack.com/oauth/v2/authorize` beside
 * `https://slack.com/api/`).
 */
export function authorizeUrl(
  fake: { origin: string; oauth: { clientId: string } },
  extra: Record<string, string> = {},
): string {
  const url = new URL("/oauth/v2/authorize", fake.origin);
  url.searchParams.set("client_id", fake.oauth.clientId);
  url.searchParams.set("scope", BOT_SCOPES.join(","));
  url.searchParams.set("redirect_uri", REDIRECT);
  url.searchParams.set("state", "st-123");
  for (const [k, v] of Object.entries(extra)) url.searchParams.set(k, v);
  return url.toString();
}

/** A Web API call as JSON, answered whatever its outcome (no SDK throwing on `ok: false`). */
export async function api(
  apiUrl: string,
  method: string,
  token: string | undefined,
  args: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const res = await fetch(`${apiUrl}${method}`, {
    method: "POST",
    headers: {
      "content-type": "application/json; charset=utf-8",
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(args),
  });
  return (await res.json()) as Record<string, unknown>;
}

/** `oauth.v2.access` as form fields, credentials in the body or by HTTP Basic auth. */
export async function oauthAccess(
  apiUrl: string,
  fields: Record<string, string>,
  basic?: { id: string; secret: string },
): Promise<Record<string, unknown>> {
  const res = await fetch(`${apiUrl}oauth.v2.access`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(basic === undefined
        ? {}
        : {
            authorization: `Basic ${Buffer.from(`${basic.id}:${basic.secret}`).toString("base64")}`,
          }),
    },
    body: new URLSearchParams(fields).toString(),
  });
  return (await res.json()) as Record<string, unknown>;
}

/** A small app that records every signed Events API envelope it is sent. */
export async function recordingApp(secret: string): Promise<{
  url: string;
  envelopes: Record<string, unknown>[];
  close(): Promise<void>;
}> {
  const envelopes: Record<string, unknown>[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const timestamp = Number(req.headers["x-slack-request-timestamp"]);
      const expected = signSlackRequest(secret, body, timestamp)["x-slack-signature"];
      if (req.headers["x-slack-signature"] !== expected) {
        res.writeHead(401).end();
        return;
      }
      envelopes.push(JSON.parse(body) as Record<string, unknown>);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`,
    envelopes,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
