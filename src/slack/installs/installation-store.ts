import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { Installation, InstallationQuery, InstallationStore } from "@slack/oauth";
import { z } from "zod";
import type { Store } from "../../store/index.ts";
import { type InstallRef, installKeyOf } from "./install-key.ts";
import { InstallUnavailable } from "./token-source.ts";

/**
 * Installations encrypted with AES-256-GCM under SLACK_TOKEN_KEY (a store copy reveals no
 * token), the install key as additional data so a value copied under another key won't decrypt.
 */

const tokenSchema = z.object({
  token: z.string().min(1),
  refreshToken: z.string().min(1).optional(),
  expiresAt: z.number().optional(),
  scopes: z.array(z.string()),
  id: z.string(),
  userId: z.string(),
});
const idName = z.object({ id: z.string().min(1), name: z.string().optional() });
export const installationSchema = z.looseObject({
  team: idName.optional(),
  enterprise: idName.optional(),
  user: z.looseObject({
    id: z.string(),
    token: z.string().optional(),
    refreshToken: z.string().optional(),
    expiresAt: z.number().optional(),
    scopes: z.array(z.string()).optional(),
  }),
  bot: tokenSchema.optional(),
  isEnterpriseInstall: z.boolean().optional(),
  authVersion: z.enum(["v1", "v2"]).optional(),
  appId: z.string().optional(),
  tokenType: z.literal("bot").optional(),
  enterpriseUrl: z.string().optional(),
  metadata: z.string().optional(),
});

const recordSchema = z.object({
  installation: installationSchema,
  revokedAt: z.number().optional(),
});
export type InstallRecord = z.infer<typeof recordSchema>;

/** A record and the stored value it came from: what `replace` compares. */
export interface InstallSnapshot {
  readonly record: InstallRecord;
  readonly sealed: unknown;
}

const sealedSchema = z.object({
  v: z.literal(1),
  iv: z.base64(),
  tag: z.base64(),
  data: z.base64(),
});
type Sealed = z.infer<typeof sealedSchema>;

export class InstallationUnreadable extends Error {
  readonly code = "installation_unreadable";
  readonly install: string;

  constructor(install: string, cause?: unknown) {
    super(
      `The installation ${install} in the store cannot be decrypted: SLACK_TOKEN_KEY is not the key it was written with, or the stored value was altered. Set the key it was written with, or install the app again in that workspace.`,
      cause === undefined ? undefined : { cause },
    );
    this.name = "InstallationUnreadable";
    this.install = install;
  }
}

const AAD_PREFIX = "meeting-notes/installs/";

export function installKeyOfInstallation(
  installation: Pick<InstallRecord["installation"], "team" | "enterprise" | "isEnterpriseInstall">,
): string {
  return installKeyOf({
    teamId: installation.team?.id,
    enterpriseId: installation.enterprise?.id,
    isEnterpriseInstall: installation.isEnterpriseInstall === true,
  });
}

function keyOfQuery(query: InstallationQuery<boolean> | InstallRef | string): string {
  return typeof query === "string" ? query : installKeyOf(query);
}

export function usable(install: string, read: InstallSnapshot | undefined): InstallSnapshot {
  if (read === undefined) throw new InstallUnavailable(install, "not_installed");
  if (read.record.revokedAt !== undefined) throw new InstallUnavailable(install, "revoked");
  return read;
}

export class EncryptedInstallationStore implements InstallationStore {
  readonly #store: Store;
  readonly #key: Buffer;

  constructor(options: { store: Store; key: Buffer }) {
    if (options.key.length !== 32) throw new RangeError("SLACK_TOKEN_KEY must be 32 bytes");
    this.#store = options.store;
    this.#key = options.key;
  }

  async storeInstallation<V extends "v1" | "v2">(
    installation: Installation<V, boolean>,
  ): Promise<void> {
    const parsed = installationSchema.parse(installation);
    await this.write(installKeyOfInstallation(parsed), { installation: parsed });
  }

  async fetchInstallation(
    query: InstallationQuery<boolean>,
  ): Promise<Installation<"v1" | "v2", boolean>> {
    const install = keyOfQuery(query);
    const { record } = usable(install, await this.snapshot(install));
    return record.installation as Installation<"v1" | "v2", boolean>;
  }

  async deleteInstallation(query: InstallationQuery<boolean> | string): Promise<void> {
    await this.#store.delete("installs", keyOfQuery(query));
  }

  async read(install: string): Promise<InstallRecord | undefined> {
    return (await this.snapshot(install))?.record;
  }

  async snapshot(install: string): Promise<InstallSnapshot | undefined> {
    const raw = await this.#store.get<unknown>("installs", install);
    if (raw === undefined) return undefined;
    const sealed = sealedSchema.safeParse(raw);
    if (!sealed.success) throw new InstallationUnreadable(install, sealed.error);
    let text: string;
    try {
      text = this.#open(install, sealed.data);
    } catch (error) {
      throw new InstallationUnreadable(install, error);
    }
    const record = recordSchema.safeParse(JSON.parse(text));
    if (!record.success) throw new InstallationUnreadable(install, record.error);
    return { record: record.data, sealed: raw };
  }

  /**
   * Compare-and-set: never over a reinstall, an uninstall or another replica's write since `from`.
   */
  async replace(
    install: string,
    from: InstallSnapshot,
    record: InstallRecord,
  ): Promise<InstallSnapshot | undefined> {
    const sealed = this.#seal(install, JSON.stringify(record));
    const written = await this.#store.compareAndSet("installs", install, from.sealed, sealed);
    return written ? { record, sealed } : undefined;
  }

  async write(install: string, record: InstallRecord): Promise<void> {
    await this.#store.set("installs", install, this.#seal(install, JSON.stringify(record)));
  }

  #seal(install: string, text: string): Sealed {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    cipher.setAAD(Buffer.from(AAD_PREFIX + install, "utf8"));
    const data = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
    return {
      v: 1,
      iv: iv.toString("base64"),
      tag: cipher.getAuthTag().toString("base64"),
      data: data.toString("base64"),
    };
  }

  #open(install: string, sealed: Sealed): string {
    // The tag's length fixed: GCM would otherwise accept a tag cut short.
    const decipher = createDecipheriv("aes-256-gcm", this.#key, Buffer.from(sealed.iv, "base64"), {
      authTagLength: 16,
    });
    decipher.setAAD(Buffer.from(AAD_PREFIX + install, "utf8"));
    decipher.setAuthTag(Buffer.from(sealed.tag, "base64"));
    const data = Buffer.from(sealed.data, "base64");
    return Buffer.concat([decipher.update(data), decipher.final()]).toString("utf8");
  }
}
