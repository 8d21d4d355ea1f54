import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from "@slack/bolt";
import { SLACK_USER_ID } from "../../../jobs/index.ts";
import { speakerBlock } from "../../ids.ts";
import { localeOf, t } from "../../messages/index.ts";
import {
  buildCommandRefusal,
  type NamedSpeaker,
  parseSpeakerSubmission,
  permissionSentence,
  type SpeakerEntry,
  speakerMapFor,
  speakersInModal,
} from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";
import { tellUser } from "../replies.ts";
import { chooseTemplate, saveTemplate, templateRefusal } from "../save-template.ts";

type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/**
 * The speaker modal, in both its modes: names for a job waiting for them, or new names,
 * context and template for a finished job (Regenerate). `private_metadata` holds only the
 * job id; the job is read again here and must still be in the right stage, the submitter
 * still allowed (as Slack has their role and membership now), and a new template theirs to
 * use.
 */
export function speakerNamesSubmitted(deps: ListenerDeps, mode: "names" | "regenerate") {
  return async ({ ack, view, body, client }: ViewArgs) => {
    const userId = body.user?.id;
    if (typeof userId !== "string") return void (await ack());
    const locale = localeOf((await deps.directory.user(userId)).locale);
    // private_metadata holds only the job id; anything else finds no job and is refused.
    const jobId =
      typeof view.private_metadata === "string" ? view.private_metadata.slice(0, 100) : "";
    const job = jobId === "" ? undefined : await deps.jobs.get(jobId);
    const expected = mode === "names" ? "naming" : "done";
    const speakerIds = job === undefined ? [] : speakersInModal(job).map((s) => s.speakerId);
    if (job === undefined || job.stage !== expected) {
      const block = speakerBlock.name(speakerIds[0] ?? "speaker_1");
      const refusal = buildCommandRefusal(
        job === undefined ? "not_found" : "wrong_stage",
        mode,
        locale,
      );
      await ack({ response_action: "errors", errors: { [block]: refusal.text } });
      return;
    }
    // Checked again on submission: the modal could have been opened before a role changed.
    const decision = await deps.permissions.jobAction(mode, job, userId);
    if (!decision.ok) {
      const block = speakerBlock.name(speakerIds[0] ?? "speaker_1");
      const sentence = permissionSentence(decision.reason, mode, locale);
      await ack({ response_action: "errors", errors: { [block]: sentence } });
      return;
    }
    const parsed = parseSpeakerSubmission(view.state?.values, speakerIds, locale);
    if (!parsed.ok) {
      await ack({ response_action: "errors", errors: parsed.errors });
      return;
    }
    const template = await chooseTemplate(deps, parsed.templateFileId, userId);
    if (template.kind === "refused") {
      await ack({ response_action: "errors", errors: templateRefusal(locale) });
      return;
    }
    await ack();
    const speakerMap = speakerMapFor(job, await namedSpeakers(deps, parsed.entries), locale);
    const templateId = await saveTemplate(deps, template, {
      teamId: job.origin.teamId,
      channelId: job.origin.channelId,
    });
    const changes = {
      ...(parsed.contextText === undefined ? {} : { contextText: parsed.contextText }),
      ...(templateId === undefined ? {} : { templateId }),
      members: membersOf(parsed.entries),
    };
    const result =
      mode === "names"
        ? await deps.jobs.submitNames(job.id, speakerMap, changes)
        : await deps.jobs.regenerate(job.id, { speakerMap, ...changes });
    if (!result.ok) {
      await tellUser(
        client,
        deps.logger,
        { channel: job.origin.channelId, user: userId },
        buildCommandRefusal(result.reason, mode, locale, result.retryInMs),
      );
    } else if (template.kind !== "none" && templateId === undefined) {
      const text = t(locale, "template.unreadable");
      await tellUser(
        client,
        deps.logger,
        { channel: job.origin.channelId, user: userId },
        { text, blocks: [] },
      );
    }
  };
}

/**
 * The speakers named by picking a member and nothing typed: the only ones a note may
 * mention. A typed name wins over the member, so it is never turned into a mention.
 */
function membersOf(entries: SpeakerEntry[]): Record<string, string> {
  const members: Record<string, string> = {};
  for (const entry of entries) {
    if (
      entry.name === undefined &&
      entry.userId !== undefined &&
      SLACK_USER_ID.test(entry.userId)
    ) {
      members[entry.speakerId] = entry.userId;
    }
  }
  return members;
}

/** A chosen member gives their real name; a typed name wins over it. */
async function namedSpeakers(
  deps: ListenerDeps,
  entries: SpeakerEntry[],
): Promise<Map<string, NamedSpeaker>> {
  const named = await Promise.all(
    entries.map(async (entry): Promise<[string, NamedSpeaker]> => {
      const name =
        entry.name ??
        (entry.userId === undefined
          ? entry.speakerId
          : (await deps.directory.user(entry.userId)).name);
      return [
        entry.speakerId,
        { name, ...(entry.gender === undefined ? {} : { gender: entry.gender }) },
      ];
    }),
  );
  return new Map(named);
}
