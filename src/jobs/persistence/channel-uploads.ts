import { z } from "zod";
import type { Store } from "../../store/index.ts";
import type { WorkspaceData } from "./workspace-data.ts";

/**
 * One file of an upload, as its message showed it: enough to look it up again, and whether
 * it is a recording the bot takes (else it may be one: Slack showed only a stub).
 */
const seenFileSchema = z.object({
  id: z.string().min(1),
  name: z.string().optional(),
  recording: z.boolean().optional(),
});

/** An upload message the bot saw, with the files that are or may be recordings. */
export const seenUploadSchema = z.object({
  /** The message's ts: the thread a mention of it is said in. */
  ts: z.string().min(1),
  userId: z.string().min(1),
  /** What was typed with it: the context of notes made from it later. */
  text: z.string().optional(),
  files: z.array(seenFileSchema).min(1).max(10),
});
export type SeenUpload = z.infer<typeof seenUploadSchema>;

const uploadKey = (tenant: string, channelId: string, ts: string) =>
  `upload:${tenant}:${channelId}:${ts}`;
const channelIndex = (tenant: string, channelId: string) => `uploads:${tenant}:${channelId}`;

/**
 * The uploads of recordings the bot saw in each channel, as their events told it: the
 * message, its sharer, its files and the text typed with it. A mention in an upload's
 * thread and the `/meeting-notes` modal's recent recordings are answered from here, not by
 * reading the channel's history (which Slack may allow once a minute). Kept
 * `retentionMs`, newest 50 per channel listed, noted under the tenant so an uninstall
 * forgets them.
 */
export class ChannelUploads {
  readonly #store: Store;
  readonly #workspaces: WorkspaceData;
  readonly #ttlMs: number;

  constructor(options: { store: Store; workspaces: WorkspaceData; retentionMs: number }) {
    this.#store = options.store;
    this.#workspaces = options.workspaces;
    this.#ttlMs = options.retentionMs;
  }

  /** Keeps an upload of the channel (the same message twice is one). */
  async saw(tenant: string, channelId: string, upload: SeenUpload): Promise<void> {
    const valid = seenUploadSchema.parse(upload);
    const key = uploadKey(tenant, channelId, valid.ts);
    const index = channelIndex(tenant, channelId);
    // Noted first: a crash between the writes leaves a note of nothing, never an unnoted
    // value an uninstall would miss.
    await this.#workspaces.note(tenant, "meta", key);
    await this.#workspaces.noteIndex(tenant, index);
    await this.#store.set("meta", key, valid, this.#ttlMs);
    await this.#store.pushIndex(index, valid.ts);
  }

  /** The upload posted at `ts` in the channel, when the bot saw it. */
  async at(tenant: string, channelId: string, ts: string): Promise<SeenUpload | undefined> {
    const raw = await this.#store.get<unknown>("meta", uploadKey(tenant, channelId, ts));
    const parsed = seenUploadSchema.safeParse(raw);
    return parsed.success ? parsed.data : undefined;
  }

  /** The channel's latest `count` uploads the bot saw and still keeps, newest first. */
  async recent(tenant: string, channelId: string, count: number): Promise<SeenUpload[]> {
    const listed = await this.#store.listIndex(channelIndex(tenant, channelId));
    const found = await Promise.all(
      listed.slice(0, count).map((ts) => this.at(tenant, channelId, ts)),
    );
    return found.filter((upload) => upload !== undefined);
  }
}
