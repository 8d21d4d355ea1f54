import type { FakeSlackStore } from "./fake-slack-store.ts";
import type { HandedOut } from "./handed-out.ts";
import type { FakeSocketMode } from "./socket-mode-types.ts";
import { viewAnswerProblem } from "./view-answers.ts";
import type { DeliveryWatcher } from "./violations.ts";

/**
 * How a fake judges what the tests deliver to the app and what the app answers:
 * - a slash command reaches only an app granted the `commands` scope, the one that lets an
 *   app "add shortcuts and/or slash commands that people can use"
 *   (https://docs.slack.dev/reference/scopes/commands): delivering one to an install
 *   without it throws, as Slack would never send it;
 * - a shortcut (`message_action` from a message's menu, `shortcut` from the composer) needs
 *   that scope too, and reaches the app only under a `callback_id` its manifest declares
 *   with that type (`features.shortcuts`, https://docs.slack.dev/reference/app-manifest;
 *   "message shortcuts will return message_action", https://docs.slack.dev/reference/
 *   interaction-payloads/shortcuts-interaction-payload): Slack offers no other;
 * - a `view_submission` answered with `response_action: "errors"` naming no input block of
 *   the view is recorded as a violation (view-answers.ts).
 * What each delivery carries that acts as the app (`trigger_id`, `response_url`, a step's
 * token) goes to `handedOut`.
 */
export function deliveryChecks(s: FakeSlackStore, handedOut?: HandedOut): DeliveryWatcher {
  return {
    teamId: s.workspace.teamId,
    before(kind, payload) {
      handedOut?.fromPayload(payload);
      const shortcut = kind === "interactive" ? shortcutOf(payload) : undefined;
      if (shortcut !== undefined) return checkShortcut(s, shortcut);
      if (kind !== "slash_commands" || !s.strict.scopes) return;
      if (s.installed.botScopes.includes("commands")) return;
      throw new Error("fake Slack: the installed app lacks the commands scope: no slash command");
    },
    after(kind, payload, answer) {
      if (kind !== "interactive") return;
      const problem = viewAnswerProblem(payload, answer, s);
      if (problem === undefined) return;
      const at = Date.now();
      s.violations.push({ rule: "view_errors", method: "view_submission", detail: problem, at });
    },
  };
}

/** A shortcut payload's type (as its manifest entry says it) and callback id. */
function shortcutOf(
  payload: Record<string, unknown>,
): { type: "message" | "global"; callbackId: unknown } | undefined {
  const callbackId = payload.callback_id;
  if (payload.type === "message_action") return { type: "message", callbackId };
  if (payload.type === "shortcut") return { type: "global", callbackId };
  return undefined;
}

/** Throws for a shortcut Slack would not send this install (see {@link deliveryChecks}). */
function checkShortcut(
  s: FakeSlackStore,
  shortcut: { type: "message" | "global"; callbackId: unknown },
): void {
  if (s.strict.scopes && !s.installed.botScopes.includes("commands")) {
    throw new Error("fake Slack: the installed app lacks the commands scope: no shortcut");
  }
  const declared = s.installed.shortcuts.some(
    (d) => d.type === shortcut.type && d.callbackId === shortcut.callbackId,
  );
  if (!declared) {
    throw new Error(
      `fake Slack: the app's manifest declares no ${shortcut.type} shortcut ${String(shortcut.callbackId)}`,
    );
  }
}

/** The socket server as tests use it, its deliveries and acks going through `watcher`. */
export function watchedSocket(socket: FakeSocketMode, watcher: DeliveryWatcher): FakeSocketMode {
  return {
    ...socket,
    send: async (type, payload, options) => {
      const record = typeof payload === "object" && payload !== null ? payload : {};
      watcher.before(type, record as Record<string, unknown>);
      const result = await socket.send(type, payload, options);
      if (result.acked) watcher.after(type, record as Record<string, unknown>, result.payload);
      return result;
    },
  };
}
