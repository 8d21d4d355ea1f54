import { z } from "zod";
import type { Store } from "../../store/index.ts";
import { optional } from "../../util/optional.ts";
import type { JobOptions } from "../model/job.ts";
import type { Templates } from "./templates.ts";
import type { WorkspaceData } from "./workspace-data.ts";

export const channelSettingsSchema = z.object({
  autoTranscribe: z.boolean(),
  /**
   * How the note reaches the channel besides its thread messages and DOCX: as a canvas
   * (on unless turned off; where the workspace refuses canvases the thread still has it),
   * with a speaker-named transcript (on), and with the speakers picked as Slack members
   * mentioned (off). Settings saved before these existed read as the defaults.
   */
  canvas: z.boolean().default(true),
  transcript: z.boolean().default(true),
  mentions: z.boolean().default(false),
  /**
   * Review before posting: each note goes first to the person who started the job, and
   * reaches the channel only when they post it. Off; settings saved before it read as off.
   */
  review: z.boolean().default(false),
  languageHint: z.string().optional(),
  contextText: z.string().optional(),
  templateId: z.string().optional(),
});
export type ChannelSettings = z.infer<typeof channelSettingsSchema>;
/** Settings as a caller may give them: the delivery options default as in the schema. */
export type ChannelSettingsInput = z.input<typeof channelSettingsSchema>;
const DEFAULT_SETTINGS: ChannelSettings = {
  autoTranscribe: true,
  canvas: true,
  transcript: true,
  mentions: false,
  review: false,
};

/**
 * A channel's defaults for the recordings uploaded to it. They are configuration, not a
 * meeting's personal data: they do not expire.
 */
export class ChannelSettingsStore {
  readonly #store: Store;
  readonly #workspaces: WorkspaceData;
  readonly #templates: Templates;

  constructor(options: { store: Store; workspaces: WorkspaceData; templates: Templates }) {
    this.#store = options.store;
    this.#workspaces = options.workspaces;
    this.#templates = options.templates;
  }

  /** The channel's settings; the defaults when none were saved or they no longer parse. */
  get(teamId: string, channelId: string): Promise<ChannelSettings> {
    return readChannelSettings(this.#store, teamId, channelId);
  }

  /** Saves them; a template they stop naming then lives as long as jobs may need it. */
  async set(teamId: string, channelId: string, settings: ChannelSettingsInput): Promise<void> {
    const valid = channelSettingsSchema.parse(settings);
    const key = `${teamId}:${channelId}`;
    const before = await this.get(teamId, channelId);
    await this.#workspaces.note(teamId, "settings", key);
    await this.#store.set("settings", key, valid);
    if (before.templateId !== undefined && before.templateId !== valid.templateId) {
      await this.#templates.unpin(before.templateId);
    }
  }
}

/** A channel's settings read from the store, as `ChannelSettingsStore.get` reads them. */
export async function readChannelSettings(
  store: Store,
  teamId: string,
  channelId: string,
): Promise<ChannelSettings> {
  const raw = await store.get<unknown>("settings", `${teamId}:${channelId}`);
  const parsed = channelSettingsSchema.safeParse(raw);
  return parsed.success ? parsed.data : DEFAULT_SETTINGS;
}

/**
 * What a recording uploaded to a channel starts with: the channel's language and template,
 * review before posting where the channel asks for it, and as context the channel's text
 * followed by the text typed with the upload.
 */
export function uploadOptions(settings: ChannelSettings, text: string | undefined): JobOptions {
  const contextText = [settings.contextText, text?.trim()].filter(Boolean).join("\n\n");
  return {
    ...(contextText === "" ? {} : { contextText }),
    ...optional("languageHint", settings.languageHint),
    ...optional("templateId", settings.templateId),
    ...(settings.review ? { review: true } : {}),
  };
}
