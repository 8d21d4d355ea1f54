import { z } from "zod";
import { type Job, tenantOfOrigin } from "../../../jobs/index.ts";
import { optional } from "../../../util/optional.ts";
import {
  type SpeakerEntry,
  type SpeakerPrefill,
  speakerEntrySchema,
} from "../../views/speaker-form.ts";
import type { ListenerDeps } from "../deps.ts";

/**
 * Other pages' input, kept in the store by view id (stable through updates): `private_metadata`
 * holds only 3,000 characters, outgrown by page two.
 */
const draftSchema = z.object({
  jobId: z.string(),
  entries: z.array(speakerEntrySchema),
  /** Regenerate's context typed on the last page, kept when the person goes back. */
  contextText: z.string().optional(),
});
type SpeakerDraft = z.infer<typeof draftSchema>;

const draftKey = (viewId: string) => `speakers:${viewId}`;

/** Empty when there is none, or it is another job's. */
export async function readDraft(
  deps: ListenerDeps,
  viewId: string,
  jobId: string,
): Promise<SpeakerDraft> {
  const empty: SpeakerDraft = { jobId, entries: [] };
  if (viewId === "") return empty;
  const parsed = draftSchema.safeParse(await deps.modals.read(draftKey(viewId)));
  if (!parsed.success || parsed.data.jobId !== jobId) return empty;
  return parsed.data;
}

/** A speaker left empty is kept empty, so the page shows it empty again, not the job's old name. */
export async function keepPage(
  deps: ListenerDeps,
  job: Job,
  viewId: string,
  page: { speakerIds: readonly string[]; entries: SpeakerEntry[]; contextText?: string },
): Promise<SpeakerDraft> {
  const draft = await readDraft(deps, viewId, job.id);
  const onPage = page.speakerIds.map(
    (speakerId) => page.entries.find((entry) => entry.speakerId === speakerId) ?? { speakerId },
  );
  const next: SpeakerDraft = {
    ...draft,
    entries: [...others(draft, page.speakerIds), ...onPage],
    ...optional("contextText", page.contextText),
  };
  if (viewId !== "") await deps.modals.keep(tenantOfOrigin(job.origin), draftKey(viewId), next);
  return next;
}

/** Every speaker named on any page, the submitted page's entries in place of its draft. */
export function withPage(
  draft: SpeakerDraft,
  speakerIds: readonly string[],
  entries: SpeakerEntry[],
): SpeakerEntry[] {
  const named = others(draft, speakerIds).filter(
    (e) => e.name !== undefined || e.userId !== undefined,
  );
  return [...named, ...entries];
}

function others(draft: SpeakerDraft, speakerIds: readonly string[]): SpeakerEntry[] {
  const onPage = new Set(speakerIds);
  return draft.entries.filter((entry) => !onPage.has(entry.speakerId));
}

export function prefillOf(draft: SpeakerDraft): Record<string, SpeakerPrefill> {
  const prefill: Record<string, SpeakerPrefill> = {};
  for (const { speakerId, ...entered } of draft.entries) prefill[speakerId] = entered;
  return prefill;
}

export function forgetDraft(deps: ListenerDeps, viewId: string): Promise<void> {
  return viewId === "" ? Promise.resolve() : deps.modals.forget(draftKey(viewId));
}
