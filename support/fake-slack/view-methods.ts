import { randomBytes } from "node:crypto";
import { z } from "zod";
import { idArg, parseArgs } from "./api-args.ts";
import { checkView } from "./block-limits.ts";
import type { FakeSlackStore, StoredView } from "./fake-slack-store.ts";
import type { FakeViewRecord } from "./fake-slack-types.ts";
import type { ApiMethod } from "./message-helpers.ts";
import { SlackApiError } from "./slack-api-error.ts";
import { exchangeTrigger } from "./triggers.ts";

/**
 * `views.open`: needs a `trigger_id` (only interactions carry one), exchanged within 3 s of
 * the interaction and only once (triggers.ts). The view is checked first, so a bad view is
 * reported as such (and the fake does not count its trigger as exchanged).
 */
const open: ApiMethod = (args, store) => {
  const { trigger_id } = parseArgs(z.object({ trigger_id: idArg }), args);
  checkView(args.view, store.strict.blockKit);
  if (store.strict.triggers) exchangeTrigger(trigger_id, store.now(), store.exchangedTriggers);
  return { view: create(store, args.view, "open", { trigger_id }) };
};

/** `views.push`: a modal on top of the open one, on a fresh trigger as `views.open`. */
const push: ApiMethod = (args, store) => {
  const { trigger_id } = parseArgs(z.object({ trigger_id: idArg }), args);
  checkView(args.view, store.strict.blockKit);
  if (store.strict.triggers) exchangeTrigger(trigger_id, store.now(), store.exchangedTriggers);
  return { view: create(store, args.view, "push", { trigger_id }) };
};

const updateArgs = z.object({
  view_id: z.string().optional(),
  external_id: z.string().optional(),
  hash: z.string().optional(),
});

/** `views.update`: by `view_id` or `external_id`; a stale `hash` gives `hash_conflict`. */
const update: ApiMethod = (args, store) => {
  const a = parseArgs(updateArgs, args);
  if (a.view_id === undefined && a.external_id === undefined) {
    throw new SlackApiError("invalid_arguments", "view_id or external_id is required");
  }
  checkView(args.view, store.strict.blockKit);
  const stored = [...store.views.values()].find((v) =>
    a.view_id !== undefined ? v.id === a.view_id : v.view.external_id === a.external_id,
  );
  if (stored === undefined) throw new SlackApiError("not_found");
  if (a.hash !== undefined && a.hash !== stored.hash) throw new SlackApiError("hash_conflict");
  stored.view = args.view;
  stored.hash = newHash();
  record(store, "update", stored, {});
  return { view: viewOut(store, stored) };
};

/** `views.publish`: the user's Home tab, one view per user. */
const publish: ApiMethod = (args, store) => {
  const { user_id } = parseArgs(z.object({ user_id: idArg }), args);
  checkView(args.view, store.strict.blockKit);
  if (args.view.type !== "home") throw new SlackApiError("invalid_arguments", "not a home view");
  const existing = store.views.get(store.homeViews.get(user_id) ?? "");
  if (existing !== undefined) {
    existing.view = args.view;
    existing.hash = newHash();
    record(store, "publish", existing, { user_id });
    return { view: viewOut(store, existing) };
  }
  return { view: create(store, args.view, "publish", { user_id }) };
};

/** The Web API methods about modals and the Home tab. */
export const viewMethods: Record<string, ApiMethod> = {
  "views.open": open,
  "views.push": push,
  "views.update": update,
  "views.publish": publish,
};

function create(
  store: FakeSlackStore,
  view: unknown,
  op: FakeViewRecord["op"],
  extra: { trigger_id?: string; user_id?: string },
): Record<string, unknown> {
  checkView(view, store.strict.blockKit);
  const id = store.newId("V");
  const stored: StoredView = {
    id,
    view,
    hash: newHash(),
    root_view_id: id,
    previous_view_id: null,
    ...(extra.user_id !== undefined ? { user_id: extra.user_id } : {}),
  };
  store.views.set(id, stored);
  if (extra.user_id !== undefined) store.homeViews.set(extra.user_id, id);
  record(store, op, stored, extra);
  return viewOut(store, stored);
}

function record(
  store: FakeSlackStore,
  op: FakeViewRecord["op"],
  stored: StoredView,
  extra: { trigger_id?: string; user_id?: string },
): void {
  store.viewRecords.push({
    op,
    view_id: stored.id,
    view: structuredClone(stored.view),
    ...extra,
    at: Date.now(),
  });
}

/** The view object Slack answers: the payload plus its identity, hash and empty state. */
function viewOut(store: FakeSlackStore, stored: StoredView): Record<string, unknown> {
  const { teamId, appId, botId } = store.workspace;
  return {
    private_metadata: "",
    callback_id: "",
    external_id: "",
    clear_on_close: false,
    notify_on_close: false,
    ...structuredClone(stored.view),
    id: stored.id,
    team_id: teamId,
    state: { values: {} },
    hash: stored.hash,
    root_view_id: stored.root_view_id,
    previous_view_id: stored.previous_view_id,
    app_id: appId,
    app_installed_team_id: teamId,
    bot_id: botId,
  };
}

function newHash(): string {
  return `${Math.floor(Date.now() / 1000)}.${randomBytes(4).toString("hex")}`;
}
