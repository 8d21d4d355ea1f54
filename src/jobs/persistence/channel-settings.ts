import { z } from "zod";
import type { Store } from "../../store/index.ts";
import { optional } from "../../util/optional.ts";
import type { JobOptions } from "../model/job-parts.ts";
import type { Templates } from "./templates.ts";
import type { WorkspaceData } from "./workspace-data.ts";

export const channelSettingsSchema = z.object({
  autoTranscribe: z.boolean(),
  /**
   * How the note reaches the channel besides the thread: canvas (on), transcript (on), mentions of
   * the people named (off). Older saved settings read as the defaults.
   */
  canvas: z.boolean().default(true),
  transcript: z.boolean().default(true),
  mentions: z.boolean().default(false),
  review: z.boolean().default(false),
  languageHint: z.string().optional(),
  contextText: z.string().optional(),
  templateId: z.string().optional(),
});
export type ChannelSettings = z.infer<typeof channelSettingsSchema>;
export type ChannelSettingsInput = z.input<typeof channelSettingsSchema>;
const DEFAULT_SETTINGS: ChannelSettings = {
  autoTranscribe: true,
  canvas: true,
  transcript: true,
  mentions: false,
  review: false,
};

/** Configuration, not a meeting's personal data: they do not expire. */
export class ChannelSettingsStore {
  readonly #o: { store: Store; workspaces: WorkspaceData; templates: Templates };

  constructor(options: { store: Store; workspaces: WorkspaceData; templates: Templates }) {
    this.#o = options;
  }

  get(teamId: string, channelId: string): Promise<ChannelSettings> {
    return readChannelSettings(this.#o.store, teamId, channelId);
  }

  /** A template they stop naming then lives as long as jobs may need it. */
  async set(teamId: string, channelId: string, settings: ChannelSettingsInput): Promise<void> {
    const valid = channelSettingsSchema.parse(settings);
    const key = `${teamId}:${channelId}`;
    const before = await this.get(teamId, channelId);
    await this.#o.workspaces.note(teamId, "settings", key);
    await this.#o.store.set("settings", key, valid);
    if (before.templateId !== undefined && before.templateId !== valid.templateId) {
      await this.#o.templates.unpin(before.templateId);
    }
  }
}

export async function readChannelSettings(
  store: Store,
  teamId: string,
  channelId: string,
): Promise<ChannelSettings> {
  const raw = await store.get<unknown>("settings", `${teamId}:${channelId}`);
  const parsed = channelSettingsSchema.safeParse(raw);
  return parsed.success ? parsed.data : DEFAULT_SETTINGS;
}

/** The channel's language, template and review, and as context its text then the upload's. */
export function uploadOptions(settings: ChannelSettings, text: string | undefined): JobOptions {
  const contextText = [settings.contextText, text?.trim()].filter(Boolean).join("\n\n");
  return {
    ...(contextText === "" ? {} : { contextText }),
    ...optional("languageHint", settings.languageHint),
    ...optional("templateId", settings.templateId),
    ...(settings.review ? { review: true } : {}),
  };
}
