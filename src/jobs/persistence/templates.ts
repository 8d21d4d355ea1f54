import { createHash } from "node:crypto";
import { z } from "zod";
import { checkTemplate, MAX_TEMPLATE_BYTES } from "../../notetaker/index.ts";
import type { Store } from "../../store/index.ts";
import { safeFileName } from "../../text/index.ts";
import type { WorkspaceData } from "./workspace-data.ts";

export interface StoredTemplate {
  filename: string;
  base64: string;
}

export interface TemplateScope {
  teamId: string;
  channelId: string;
}

/** Read without the value, which holds the whole DOCX. */
const metaSchema = z.object({
  pinned: z.boolean(),
  expiresAt: z.number().optional(),
});
type TemplateMeta = z.infer<typeof metaSchema>;

const metaKey = (id: string) => `template:${id}`;

type Deps = { store: Store; retentionMs: number; now: () => number; workspaces: WorkspaceData };

/**
 * DOCX templates, stored once per channel and content (the id holds the SHA-256). One a channel's
 * settings name lives as long as they do; one given for a job lives `retentionMs`.
 */
export class Templates {
  readonly #o: Deps;

  constructor(options: Deps) {
    this.#o = options;
  }

  /** @throws {RangeError|NoteTakerInputError} for an empty, oversized or non-DOCX file. */
  async save(
    scope: TemplateScope,
    name: string,
    data: Uint8Array,
    options: { pinned?: boolean } = {},
  ): Promise<string> {
    const filename = safeFileName(name, { fallbackExtension: "docx" });
    if (data.byteLength === 0 || data.byteLength > MAX_TEMPLATE_BYTES) {
      throw new RangeError("A template must be a non-empty DOCX of at most 10 MB.");
    }
    // Refused now, not when the note is written.
    checkTemplate({ filename, data });
    const hash = createHash("sha256").update(data).digest("hex");
    const id = `${scope.teamId}:${scope.channelId}:${hash}`;
    const meta = await this.#meta(id);
    const pinned = options.pinned === true;
    if (meta?.pinned) return id;
    // Kept long enough for a job starting now: nothing to write.
    const halfLife = this.#o.now() + this.#o.retentionMs / 2;
    if (!pinned && meta?.expiresAt !== undefined && meta.expiresAt > halfLife) return id;
    await this.#o.workspaces.note(scope.teamId, "templates", id);
    await this.#o.workspaces.note(scope.teamId, "meta", metaKey(id));
    const value: StoredTemplate = { filename, base64: Buffer.from(data).toString("base64") };
    await this.#write(id, value, pinned);
    return id;
  }

  async unpin(id: string): Promise<void> {
    const meta = await this.#meta(id);
    if (meta?.pinned !== true) return;
    const value = await this.#o.store.get<StoredTemplate>("templates", id);
    if (value === undefined) return void (await this.#o.store.delete("meta", metaKey(id)));
    await this.#write(id, value, false);
  }

  async #write(id: string, value: StoredTemplate, pinned: boolean): Promise<void> {
    const ttl = pinned ? undefined : this.#o.retentionMs;
    const meta: TemplateMeta = pinned
      ? { pinned: true }
      : { pinned: false, expiresAt: this.#o.now() + this.#o.retentionMs };
    await this.#o.store.set("templates", id, value, ttl);
    // Written after the value: a crash in between only makes the next save write again.
    await this.#o.store.set("meta", metaKey(id), meta, ttl);
  }

  async #meta(id: string): Promise<TemplateMeta | undefined> {
    const parsed = metaSchema.safeParse(await this.#o.store.get<unknown>("meta", metaKey(id)));
    return parsed.success ? parsed.data : undefined;
  }
}
