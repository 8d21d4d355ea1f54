import { z } from "zod";
import { type Job, tenantOfOrigin } from "../../../jobs/index.ts";
import { optional } from "../../../util/optional.ts";
import type { SpeakerEntry, SpeakerPrefill } from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";

/**
 * What a person entered on the pages of a speaker modal they are not looking at, kept in
 * the store by view id (Slack keeps a view's id through its updates) until the last page
 * is submitted. Not in `private_metadata`: it holds at most 3,000 characters
 * (https://docs.slack.dev/reference/views/modal-views), and 19 speakers a page with names of
 * up to 80 characters outgrow it by the second page.
 */
const draftSchema = z.object({
  jobId: z.string(),
  entries: z.array(
    z.object({
      speakerId: z.string(),
      userId: z.string().optional(),
      name: z.string().optional(),
      gender: z.enum(["male", "female"]).optional(),
    }),
  ),
  /** Regenerate: the context typed on the last page, kept when the person goes back. */
  contextText: z.string().optional(),
});

export interface SpeakerDraft {
  jobId: string;
  entries: SpeakerEntry[];
  contextText?: string;
}

const draftKey = (viewId: string) => `speakers:${viewId}`;

/** The draft of the modal `viewId` for `jobId`; empty when there is none (or for another job). */
export async function readDraft(
  deps: ListenerDeps,
  viewId: string,
  jobId: string,
): Promise<SpeakerDraft> {
  const empty: SpeakerDraft = { jobId, entries: [] };
  if (viewId === "") return empty;
  const parsed = draftSchema.safeParse(await deps.modals.read(draftKey(viewId)));
  if (!parsed.success || parsed.data.jobId !== jobId) return empty;
  const { entries, contextText } = parsed.data;
  return {
    jobId,
    entries: entries.map(toEntry),
    ...optional("contextText", contextText),
  };
}

/**
 * Keeps what one page holds in the draft, in place of what that page held before; a
 * speaker left empty is kept empty (so the page shows it empty again, not the job's old
 * name). The context too, when given.
 */
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

/**
 * Every speaker named, on any page: the draft's, with the last page's as submitted in place
 * of what that page held.
 */
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

/** The draft's entries for speakers not on the page. */
function others(draft: SpeakerDraft, speakerIds: readonly string[]): SpeakerEntry[] {
  const onPage = new Set(speakerIds);
  return draft.entries.filter((entry) => !onPage.has(entry.speakerId));
}

/** The draft as the modal's prefill, by speaker id. */
export function prefillOf(draft: SpeakerDraft): Record<string, SpeakerPrefill> {
  const prefill: Record<string, SpeakerPrefill> = {};
  for (const { speakerId, ...entered } of draft.entries) prefill[speakerId] = entered;
  return prefill;
}

/** The names are submitted: nothing of them is kept any longer. */
export function forgetDraft(deps: ListenerDeps, viewId: string): Promise<void> {
  return viewId === "" ? Promise.resolve() : deps.modals.forget(draftKey(viewId));
}

function toEntry(raw: z.infer<typeof draftSchema>["entries"][number]): SpeakerEntry {
  const entry: SpeakerEntry = { speakerId: raw.speakerId };
  if (raw.userId !== undefined) entry.userId = raw.userId;
  if (raw.name !== undefined) entry.name = raw.name;
  if (raw.gender !== undefined) entry.gender = raw.gender;
  return entry;
}
