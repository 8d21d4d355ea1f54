import { z } from "zod";
import { idArg, parseArgs } from "./api-args.ts";
import type { FakeSlackStore } from "./fake-slack-store.ts";
import { buildCanvasObject } from "./file-object.ts";
import type { ApiMethod } from "./message-helpers.ts";
import { SlackApiError } from "./slack-api-error.ts";

/**
 * What a workspace allows of canvases, as the fake's knob:
 * - `allowed`: paid plan, canvases on;
 * - `disabled`: an admin turned canvases off (`canvas_disabled_user_team`);
 * - `free`: a free workspace, which may only create canvases tabbed in a channel
 *   (`free_teams_cannot_create_non_tabbed_canvases` without `channel_id`);
 * - `no_scope`: the app was installed before it asked for `canvases:write` (`missing_scope`).
 * Errors as listed for canvases.create/edit/access.set/delete on docs.slack.dev.
 */
export type CanvasPolicy = "allowed" | "disabled" | "free" | "no_scope";

/** A canvas as the fake keeps it. */
export interface FakeCanvas {
  id: string;
  title: string;
  markdown: string;
  /** Who made it (the bot). */
  owner: string;
  /** Channels given access with `canvases.access.set`, and the level. */
  channels: Map<string, "read" | "write" | "owner">;
  edits: number;
  deleted: boolean;
}

/** "The markdown content is limited to 1 MiB (1,048,576 characters)" (canvases docs). */
export const CANVAS_MAX_CHARS = 1_048_576;

const documentContent = z.object({ type: z.literal("markdown"), markdown: z.string() });

/** The SDK sends objects as JSON text in form bodies; JSON bodies carry them as they are. */
const jsonOrObject = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === "string" ? JSON.parse(value) : value), schema);

function allowed(store: FakeSlackStore): void {
  if (store.canvasPolicy === "no_scope") {
    // As scopes.ts answers it: the install's scopes, without the one needed.
    const provided = store.installed.botScopes.filter((s) => s !== "canvases:write").join(",");
    throw new SlackApiError("missing_scope").with({ needed: "canvases:write", provided });
  }
  if (store.canvasPolicy === "disabled") throw new SlackApiError("canvas_disabled_user_team");
}

function canvasOf(store: FakeSlackStore, id: string): FakeCanvas {
  const canvas = store.canvases.get(id);
  if (canvas === undefined || canvas.deleted) throw new SlackApiError("canvas_not_found");
  if (canvas.owner !== store.workspace.botUserId) throw new SlackApiError("restricted_action");
  return canvas;
}

const create: ApiMethod = (args, store) => {
  allowed(store);
  const a = parseArgs(
    z.object({
      title: z.string().optional(),
      document_content: jsonOrObject(documentContent).optional(),
      channel_id: z.string().optional(),
    }),
    args,
  );
  if (store.canvasPolicy === "free" && a.channel_id === undefined) {
    throw new SlackApiError("free_teams_cannot_create_non_tabbed_canvases");
  }
  const markdown = a.document_content?.markdown ?? "";
  if (markdown.length > CANVAS_MAX_CHARS) throw new SlackApiError("canvas_creation_failed");
  const id = store.newId("F");
  const title = a.title ?? "Untitled";
  const owner = store.workspace.botUserId;
  store.canvases.set(id, {
    id,
    title,
    markdown,
    owner,
    channels: new Map(),
    edits: 0,
    deleted: false,
  });
  // A canvas is a file too: files.info and files.list show it.
  store.addFile(
    buildCanvasObject(store, { id, title, user: owner, size: markdown.length }),
    undefined,
    false,
  );
  return { canvas_id: id };
};

const edit: ApiMethod = (args, store) => {
  allowed(store);
  const a = parseArgs(
    z.object({
      canvas_id: idArg,
      changes: jsonOrObject(
        z
          .array(
            z.object({
              operation: z.enum([
                "insert_after",
                "insert_before",
                "insert_at_start",
                "insert_at_end",
                "replace",
                "delete",
              ]),
              document_content: documentContent.optional(),
              section_id: z.string().optional(),
            }),
          )
          .min(1),
      ),
    }),
    args,
  );
  const canvas = canvasOf(store, a.canvas_id);
  for (const change of a.changes) {
    // Only what the bot uses: a whole-document replace (no section_id).
    if (change.operation !== "replace" || change.section_id !== undefined) {
      throw new SlackApiError("invalid_arguments", "the fake only replaces whole canvases");
    }
    const markdown = change.document_content?.markdown ?? "";
    if (markdown.length > CANVAS_MAX_CHARS) throw new SlackApiError("canvas_editing_failed");
    canvas.markdown = markdown;
    canvas.edits++;
  }
  return {};
};

const accessSet: ApiMethod = (args, store) => {
  allowed(store);
  const a = parseArgs(
    z.object({
      canvas_id: idArg,
      access_level: z.enum(["read", "write", "owner"]),
      channel_ids: jsonOrObject(z.array(z.string())).optional(),
      user_ids: jsonOrObject(z.array(z.string())).optional(),
    }),
    args,
  );
  const canvas = canvasOf(store, a.canvas_id);
  if (store.strict.canvasAccess) refuseAccessTargets(store, a);
  for (const channel of a.channel_ids ?? []) {
    if (!store.channels.has(channel)) throw new SlackApiError("channel_not_found");
    canvas.channels.set(channel, a.access_level);
  }
  return {};
};

/**
 * What canvases.access.set refuses of its targets (https://docs.slack.dev/reference/methods/
 * canvases.access.set):
 * - "Both channel_ids and user_ids cannot be passed at the same time" — `invalid_parameters`:
 *   "One of user_ids or channel_ids must be defined, but not both";
 * - `owner` with `channel_ids` — "will return an invalid_arguments error because only users
 *   can be owners";
 * - "Access levels can only be set for regular channels. Channel IDs associated with direct
 *   messages (DMs) or multi-party direct messages (MPDMs) will not be accepted and will
 *   result in an unsuccessful request. For sharing a canvas to DMs or MPDMs, use individual
 *   user IDs instead." The page names no error code for it; Slack's recorded answer to a
 *   channel it could not update is `ok: false` with `failed_to_update_channel_ids`
 *   (slackapi/java-slack-sdk json-logs/samples/api/canvases.access.set.json), and its
 *   documented twin for users is the error `failed_to_update_user_ids`: the fake answers
 *   `failed_to_update_channel_ids`, with the ids in the field of that name.
 */
function refuseAccessTargets(
  store: FakeSlackStore,
  a: { access_level: string; channel_ids?: string[] | undefined; user_ids?: string[] | undefined },
): void {
  if ((a.channel_ids === undefined) === (a.user_ids === undefined)) {
    throw new SlackApiError("invalid_parameters");
  }
  if (a.channel_ids === undefined) return;
  if (a.access_level === "owner") throw new SlackApiError("invalid_arguments");
  const direct = a.channel_ids.filter((id) => {
    const channel = store.channel(id);
    return id.startsWith("D") || channel?.is_im === true || channel?.is_mpim === true;
  });
  if (direct.length > 0) {
    throw new SlackApiError("failed_to_update_channel_ids").with({
      failed_to_update_channel_ids: direct,
    });
  }
}

const remove: ApiMethod = (args, store) => {
  allowed(store);
  const { canvas_id } = parseArgs(z.object({ canvas_id: idArg }), args);
  const canvas = canvasOf(store, canvas_id);
  canvas.deleted = true;
  store.files.delete(canvas_id);
  return {};
};

/**
 * `files.list` as far as the bot uses it: the files one user made since a time, newest
 * first (canvases among them, `filetype: "quip"`).
 */
const list: ApiMethod = (args, store) => {
  const a = parseArgs(
    z.object({
      user: z.string().optional(),
      ts_from: z.coerce.number().optional(),
      count: z.coerce.number().int().positive().optional(),
    }),
    args,
  );
  const files = [...store.files.values()]
    .map((entry) => entry.file)
    .filter((file) => a.user === undefined || file.user === a.user)
    .filter((file) => a.ts_from === undefined || file.created >= a.ts_from)
    .sort((x, y) => y.created - x.created)
    .slice(0, a.count ?? 100);
  return {
    files: structuredClone(files),
    paging: { count: a.count ?? 100, total: files.length, page: 1, pages: 1 },
  };
};

/** The Web API methods about canvases, and `files.list` that finds them. */
export const canvasMethods: Record<string, ApiMethod> = {
  "canvases.create": create,
  "canvases.edit": edit,
  "canvases.access.set": accessSet,
  "canvases.delete": remove,
  "files.list": list,
};
