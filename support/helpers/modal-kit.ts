import type { ModalView } from "@slack/types";
import type { ViewsOpenArguments, ViewsUpdateArguments } from "@slack/web-api";
import { type Mock, vi } from "vitest";
import { platformError } from "./fake-web-client.ts";
import type { ListenerKit } from "./listener-args.ts";

/** What `views.open` answers here: the view opened, with its id and hash. */
export const OPENED = { id: "V0OPENED01", hash: "1700000000.opened01" };

type ViewsUpdate = Mock<(args: ViewsUpdateArguments) => Promise<unknown>>;

/**
 * The modal methods the listeners use beyond `views.open`, on the kit's fake client, as
 * Slack answers them (https://docs.slack.dev/reference/methods/views.update): the view with
 * its id and a new hash; a stale `hash` is `hash_conflict`, an unknown view `not_found`.
 * `views.open` answers with the view's hash too, as Slack does.
 */
export function withModalMethods(kit: ListenerKit) {
  let hash = OPENED.hash;
  let count = 0;
  const views = kit.slack.views as typeof kit.slack.views & { update: ViewsUpdate };
  views.open.mockImplementation(async (args: ViewsOpenArguments) => ({
    ok: true,
    view: { ...args.view, id: OPENED.id, team_id: kit.workspace.teamId, hash },
  }));
  views.update = vi.fn(async (args: ViewsUpdateArguments) => {
    if (!("view_id" in args) || args.view_id !== OPENED.id) throw platformError("not_found");
    if (args.hash !== undefined && args.hash !== hash) throw platformError("hash_conflict");
    count += 1;
    hash = `1700000000.update${String(count).padStart(3, "0")}`;
    return { ok: true, view: { ...args.view, id: OPENED.id, hash } };
  });
  return views;
}

/** The views a listener put on screen: opened, then each update, in order. */
export function shownViews(kit: ListenerKit): ModalView[] {
  const views = kit.slack.views as typeof kit.slack.views & { update?: ViewsUpdate };
  const opened = views.open.mock.calls.map(([args]) => args.view as ModalView);
  const updated = (views.update?.mock.calls ?? []).map(([args]) => args.view as ModalView);
  return [...opened, ...updated];
}

/** The text of a view's blocks, to look for a sentence in it. */
export function textOf(view: ModalView | undefined): string {
  return JSON.stringify(view?.blocks ?? []);
}

/** Slack answering a method only after `ms`: a large workspace, a slow day. */
export function slowDown(method: Mock, ms: number): void {
  const answer = method.getMockImplementation();
  if (answer === undefined) throw new Error("the method has no answer to slow down");
  method.mockImplementation(async (...args: unknown[]) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return answer(...args);
  });
}
