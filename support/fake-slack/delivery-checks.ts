import type { FakeSlackStore } from "./fake-slack-store.ts";
import type { FakeSocketMode } from "./socket-mode-types.ts";
import { viewAnswerProblem } from "./view-answers.ts";
import type { DeliveryWatcher } from "./violations.ts";

/**
 * How a fake judges what the tests deliver to the app and what the app answers:
 * - a slash command reaches only an app granted the `commands` scope, the one that lets an
 *   app "add shortcuts and/or slash commands that people can use"
 *   (https://docs.slack.dev/reference/scopes/commands): delivering one to an install
 *   without it throws, as Slack would never send it;
 * - a `view_submission` answered with `response_action: "errors"` naming no input block of
 *   the view is recorded as a violation (view-answers.ts).
 */
export function deliveryChecks(s: FakeSlackStore): DeliveryWatcher {
  return {
    teamId: s.workspace.teamId,
    before(kind) {
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
