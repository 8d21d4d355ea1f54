import { z } from "zod";
import { jobOptionsSchema, originSchema, sourceFileSchema } from "../../jobs/index.ts";
import { slackFileSchema } from "../directory/recording-file.ts";

/** The attempt a `StartNotRecorded` gave: the same job, once, when started again. */
const attemptSchema = z.object({ jobId: z.string().min(1), claimed: z.boolean() });

/**
 * What a kept upload needs of its Slack file to be taken again — no more: not where else
 * it was shared, nor who saw it.
 */
const keptFileSchema = z.object(
  slackFileSchema.pick({
    id: true,
    name: true,
    title: true,
    filetype: true,
    mimetype: true,
    size: true,
    url_private_download: true,
    url_private: true,
    file_access: true,
    mode: true,
    media_display_type: true,
    user: true,
  }).shape,
);

/**
 * A file of an upload the store could not take after the event was acked: taken again as
 * the listener would have, once the store is back. `told`: its thread heard that it waits.
 */
export const keptUploadSchema = z.object({
  kind: z.literal("upload"),
  id: z.string().min(1),
  at: z.number(),
  origin: originSchema,
  /** Typed with the upload: the context of its notes. */
  text: z.string().optional(),
  /** The upload's message @mentioned the bot, or was sent to it. */
  mentioned: z.boolean(),
  file: keptFileSchema,
  /** The name as people saw it in the event, when the file itself has none. */
  shownName: z.string().optional(),
  attempt: attemptSchema.optional(),
  told: z.boolean().optional(),
});
export type KeptUpload = z.infer<typeof keptUploadSchema>;

/**
 * A `/meeting-notes` job whose thread was opened but whose record the store could not
 * write: started again in that thread.
 */
export const keptThreadStartSchema = z.object({
  kind: z.literal("thread"),
  id: z.string().min(1),
  at: z.number(),
  origin: originSchema,
  source: sourceFileSchema,
  options: jobOptionsSchema,
  attempt: attemptSchema,
});
export type KeptThreadStart = z.infer<typeof keptThreadStartSchema>;

/**
 * A removal — the app uninstalled, its bot's tokens revoked, a workspace taken from an
 * org-wide install — kept whole when the store could not carry it out: done, from the
 * install's check to its record's deletion, once the store is back (ids only).
 */
export const keptForgetSchema = z.object({
  kind: z.literal("forget"),
  id: z.string().min(1),
  at: z.number(),
  teamIds: z.array(z.string().min(1)).min(1),
  /** The install removed (absent: the single-token mode's). */
  install: z.string().min(1).optional(),
  /**
   * `workspaces`: only the data of `teamIds` goes, the install stays (`team_access_revoked`).
   * Absent: the whole install, its record included.
   */
  scope: z.enum(["install", "workspaces"]).optional(),
  /**
   * `tokens_revoked`: the bot users whose tokens were revoked; the install is forgotten only
   * when its bot is one of them. Absent: whatever its bot (`app_uninstalled`).
   */
  botUserIds: z.array(z.string().min(1)).optional(),
});
export type KeptForget = z.infer<typeof keptForgetSchema>;

/** A request Slack was told was taken, kept in the journal until the store records it. */
export const pendingStartSchema = z.discriminatedUnion("kind", [
  keptUploadSchema,
  keptThreadStartSchema,
  keptForgetSchema,
]);
export type PendingStart = z.infer<typeof pendingStartSchema>;

/**
 * Where a listener keeps what the store could not record after Slack's ack (the
 * request journal, replayed in the background): false when it could not be kept either.
 */
export interface PendingStarts {
  keep(entry: PendingStart): Promise<boolean>;
}

/** The parts of a Slack file a kept upload holds (see {@link keptFileSchema}). */
export function keptFile(file: z.input<typeof keptFileSchema>): KeptUpload["file"] {
  return keptFileSchema.parse(file);
}
