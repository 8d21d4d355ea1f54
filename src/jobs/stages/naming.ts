import type { SpeakerMapEntry } from "../../notetaker/index.ts";
import { optional } from "../../util/optional.ts";
import type { StepContext } from "../engine/step.ts";
import type { Job, JobIn, NoteInputs } from "../model/job.ts";
import type { Reducers } from "../model/job-records.ts";
import { startWriting } from "../model/job-records.ts";

export const namingReducers: Reducers<"naming"> = {
  awaiting_names: ({ wakeAt: _, ...job }) => ({ ...job, attempts: 0 }),
  names_given: (job, event, now) =>
    startWriting(
      job,
      noteInputs(job, event.speakerMap, event.contextText, event.templateId, event.members),
      0,
      1,
      now,
    ),
  naming_skipped: (job, _event, now) =>
    startWriting(job, noteInputs(job, [], undefined, undefined), 0, 1, now),
};

/** Waits for a person: no timer until they answer. */
export async function namingStep(ctx: StepContext, job: JobIn<"naming">): Promise<Job> {
  const shown = await ctx.showStatus(job, "required");
  return ctx.commit(shown, { type: "awaiting_names" });
}

function noteInputs(
  job: JobIn<"naming">,
  speakerMap: SpeakerMapEntry[],
  contextText: string | undefined,
  templateId: string | undefined,
  members?: Record<string, string>,
): NoteInputs {
  const context = contextText ?? job.options.contextText;
  const template = templateId ?? job.options.templateId;
  return {
    dialog: job.dialog,
    speakers: job.speakers,
    quotes: job.quotes,
    speakerMap,
    ...(members === undefined || Object.keys(members).length === 0 ? {} : { members }),
    ...optional("contextText", context),
    ...optional("templateId", template),
  };
}
