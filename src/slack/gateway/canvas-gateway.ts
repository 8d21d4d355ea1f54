import type { WebClient } from "@slack/web-api";
import type { CanvasOutcome, CanvasRefusal, Job, NotePerson } from "../../jobs/index.ts";
import { localeOf } from "../messages/catalog.ts";
import { CANVAS_MAX_CHARS, toCanvasMarkdown } from "../text/canvas-markdown.ts";
import { isDirectMessage } from "../text/direct-message.ts";
import { platformErrorOf } from "./slack-errors.ts";

/** Canvas refusals the status can name (canvases.create/edit/access.set on docs.slack.dev). */
const REFUSALS: Record<string, CanvasRefusal> = {
  canvas_disabled_user_team: "not_allowed",
  restricted_action: "not_allowed",
  not_allowed_token_type: "not_allowed",
  free_teams_cannot_create_non_tabbed_canvases: "free_plan",
  free_teams_cannot_edit_standalone_canvases: "free_plan",
  team_tier_cannot_create_channel_canvases: "free_plan",
  missing_scope: "missing_scope",
};

/**
 * Access is set for regular channels only; in a DM, for its person
 * (https://docs.slack.dev/reference/methods/canvases.access.set).
 */
export function canvasAudience(job: Job): { channel_ids: [string] } | { user_ids: [string] } {
  const { channelId, userId } = job.origin;
  return isDirectMessage(channelId) ? { user_ids: [userId] } : { channel_ids: [channelId] };
}

/** "standup.mov · Nov 23, 2026": the recording and the meeting's date, in the person's language. */
export function canvasTitle(job: Job): string {
  const date = titleDates()[localeOf(job.origin.locale) === "vi" ? "vi" : "en"].format(
    new Date(job.createdAt),
  );
  return `${job.source.filename} · ${date}`.slice(0, 250);
}

/** Built at the first canvas: building reads ICU's locale data, which an idle bot need not hold. */
let TITLE_DATES: Record<"en" | "vi", Intl.DateTimeFormat> | undefined;
function titleDates(): Record<"en" | "vi", Intl.DateTimeFormat> {
  TITLE_DATES ??= {
    en: new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeZone: "UTC" }),
    vi: new Intl.DateTimeFormat("vi-VN", { dateStyle: "medium", timeZone: "UTC" }),
  };
  return TITLE_DATES;
}

/** Writes the note as a canvas's content: a refusal is an outcome, not an error. */
async function writeCanvas<T>(
  markdown: string,
  people: readonly NotePerson[],
  write: (content: { type: "markdown"; markdown: string }) => Promise<T>,
): Promise<T | { ok: false; refused: CanvasRefusal }> {
  const content = toCanvasMarkdown(markdown, people);
  if (content.length > CANVAS_MAX_CHARS) return { ok: false, refused: "too_large" };
  try {
    return await write({ type: "markdown", markdown: content });
  } catch (error) {
    const refused = REFUSALS[platformErrorOf(error) ?? ""];
    if (refused === undefined) throw error;
    return { ok: false, refused };
  }
}

export function createCanvas(
  client: WebClient,
  job: Job,
  markdown: string,
  people: readonly NotePerson[],
): Promise<CanvasOutcome> {
  return writeCanvas(markdown, people, async (document_content) => {
    const made = await client.canvases.create({ title: canvasTitle(job), document_content });
    if (typeof made.canvas_id !== "string") throw new Error("canvases.create returned no id");
    return { ok: true, canvasId: made.canvas_id };
  });
}

export function editCanvas(
  client: WebClient,
  canvasId: string,
  markdown: string,
  people: readonly NotePerson[],
): Promise<CanvasOutcome | { ok: false; gone: true }> {
  return writeCanvas(markdown, people, async (document_content) => {
    try {
      await client.canvases.edit({
        canvas_id: canvasId,
        changes: [{ operation: "replace", document_content }],
      });
    } catch (error) {
      if (platformErrorOf(error) === "canvas_not_found") return { ok: false, gone: true };
      throw error;
    }
    return { ok: true, canvasId };
  });
}

/** Read access for the job's audience, then the canvas's permalink. */
export async function shareCanvas(client: WebClient, job: Job, canvasId: string): Promise<string> {
  await client.canvases.access.set({
    canvas_id: canvasId,
    access_level: "read",
    ...canvasAudience(job),
  });
  const info = await client.files.info({ file: canvasId });
  const url = info.file?.permalink;
  if (typeof url !== "string" || !/^https?:\/\//.test(url)) {
    throw new Error("files.info gave the canvas no link");
  }
  return url;
}

/**
 * Found by its title among the bot's files (a canvas is a file: filetype `quip`); the job id is not
 * in the title to keep it readable.
 */
export async function findCanvas(
  client: WebClient,
  botUserId: string,
  job: Job,
  since: number,
): Promise<string | undefined> {
  const listed = await client.files.list({
    user: botUserId,
    ts_from: String(Math.floor(since / 1000) - 60),
    count: 100,
  });
  const title = canvasTitle(job);
  const found = (listed.files ?? []).find(
    (file) => (file.filetype === "quip" || file.filetype === "canvas") && file.title === title,
  );
  return found?.id;
}
