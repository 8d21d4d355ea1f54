import { z } from "zod";
import { jobOptionsSchema, originSchema, sourceFileSchema } from "../../jobs/index.ts";
import { slackFileSchema } from "../directory/recording-file.ts";

/** The same job, once, when started again. */
const attemptSchema = z.object({ jobId: z.string().min(1), claimed: z.boolean() });

/** Only what a kept upload needs to be taken again, not where else it was shared or who saw it. */
const keptFileSchema = z.object(
  slackFileSchema.omit({ channels: true, groups: true, ims: true, shares: true }).shape,
);

/** An upload the store could not take after the ack; `told`: its thread heard that it waits. */
export const keptUploadSchema = z.object({
  kind: z.literal("upload"),
  id: z.string().min(1),
  at: z.number(),
  origin: originSchema,
  text: z.string().optional(),
  /** The message @mentioned the bot, or was sent to it. */
  mentioned: z.boolean(),
  file: keptFileSchema,
  /** When the file itself has none. */
  shownName: z.string().optional(),
  attempt: attemptSchema.optional(),
  told: z.boolean().optional(),
});
export type KeptUpload = z.infer<typeof keptUploadSchema>;

/** A `/meeting-notes` job whose thread was opened but whose record could not be written. */
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

/** An uninstall, revoked tokens or a workspace taken from an org-wide install (ids only). */
export const keptForgetSchema = z.object({
  kind: z.literal("forget"),
  id: z.string().min(1),
  at: z.number(),
  teamIds: z.array(z.string().min(1)).min(1),
  /** Absent: the single-token mode's. */
  install: z.string().min(1).optional(),
  /** `workspaces` (`team_access_revoked`): only `teamIds`' data goes; absent: the whole install. */
  scope: z.enum(["install", "workspaces"]).optional(),
  /** `tokens_revoked`: forgotten only when the install's bot is one of these. */
  botUserIds: z.array(z.string().min(1)).optional(),
});
export type KeptForget = z.infer<typeof keptForgetSchema>;

export const pendingStartSchema = z.discriminatedUnion("kind", [
  keptUploadSchema,
  keptThreadStartSchema,
  keptForgetSchema,
]);
export type PendingStart = z.infer<typeof pendingStartSchema>;

/** False when the request journal could not keep it either. */
export interface PendingStarts {
  keep(entry: PendingStart): Promise<boolean>;
}

export function keptFile(file: z.input<typeof keptFileSchema>): KeptUpload["file"] {
  return keptFileSchema.parse(file);
}
