import { z } from "zod";
import type { Store } from "../../store/index.ts";
import type { WorkspaceData } from "./workspace-data.ts";

/** `recording` absent: Slack showed only a stub, so it may be one. */
const seenFileSchema = z.object({
  id: z.string().min(1),
  name: z.string().optional(),
  recording: z.boolean().optional(),
});

export const seenUploadSchema = z.object({
  ts: z.string().min(1),
  userId: z.string().min(1),
  text: z.string().optional(),
  files: z.array(seenFileSchema).min(1).max(10),
});
export type SeenUpload = z.infer<typeof seenUploadSchema>;

const uploadKey = (tenant: string, channelId: string, ts: string) =>
  `upload:${tenant}:${channelId}:${ts}`;
const channelIndex = (tenant: string, channelId: string) => `uploads:${tenant}:${channelId}`;

/**
 * The recording uploads the bot saw in each channel, so a mention in a thread
 * and the modal's recent recordings need no read of history (which Slack may
 * allow once a minute). Noted under the tenant so an uninstall forgets them.
 */
export class ChannelUploads {
  readonly #o: { store: Store; workspaces: WorkspaceData; retentionMs: number };

  constructor(options: { store: Store; workspaces: WorkspaceData; retentionMs: number }) {
    this.#o = options;
  }

  async saw(tenant: string, channelId: string, upload: SeenUpload): Promise<void> {
    const valid = seenUploadSchema.parse(upload);
    const key = uploadKey(tenant, channelId, valid.ts);
    const index = channelIndex(tenant, channelId);
    // Noted first: a crash between the writes never leaves a value an uninstall would miss.
    await this.#o.workspaces.note(tenant, "meta", key);
    await this.#o.workspaces.noteIndex(tenant, index);
    await this.#o.store.set("meta", key, valid, this.#o.retentionMs);
    await this.#o.store.pushIndex(index, valid.ts);
  }

  async at(tenant: string, channelId: string, ts: string): Promise<SeenUpload | undefined> {
    const raw = await this.#o.store.get<unknown>("meta", uploadKey(tenant, channelId, ts));
    const parsed = seenUploadSchema.safeParse(raw);
    return parsed.success ? parsed.data : undefined;
  }

  async recent(tenant: string, channelId: string, count: number): Promise<SeenUpload[]> {
    const listed = await this.#o.store.listIndex(channelIndex(tenant, channelId));
    const found = await Promise.all(
      listed.slice(0, count).map((ts) => this.at(tenant, channelId, ts)),
    );
    return found.filter((upload) => upload !== undefined);
  }
}
