import { type Job, SLACK_USER_ID, tenantOfOrigin } from "../../../jobs/index.ts";
import { optional } from "../../../util/optional.ts";
import { type Locale, t } from "../../messages/catalog.ts";
import { buildCommandRefusal } from "../../views/command-replies.ts";
import type { MessageContent } from "../../views/message-content.ts";
import { sentenceReply } from "../../views/notice-modal.ts";
import { type NamedSpeaker, type SpeakerEntry, speakerMapFor } from "../../views/speaker-form.ts";
import type { ListenerDeps } from "../deps.ts";
import { saveTemplate, type TemplateChoice } from "../save-template.ts";

export interface NameChanges {
  entries: SpeakerEntry[];
  template: TemplateChoice;
  contextText: string | undefined;
}

/** After the ack: failures are told; the success sentence is for a modal still on screen. */
export async function applyNames(
  deps: ListenerDeps,
  job: Job,
  mode: "names" | "regenerate",
  changes: NameChanges,
  say: { locale: Locale; tell: (reply: MessageContent) => Promise<void> },
): Promise<MessageContent | undefined> {
  const { locale, tell } = say;
  const speakerMap = speakerMapFor(job, await namedSpeakers(deps, changes.entries), locale);
  const templateId = await saveTemplate(deps, changes.template, {
    teamId: tenantOfOrigin(job.origin),
    channelId: job.origin.channelId,
  });
  const update = {
    ...optional("contextText", changes.contextText),
    ...optional("templateId", templateId),
    members: membersOf(changes.entries),
  };
  const result =
    mode === "names"
      ? await deps.jobs.submitNames(job.id, speakerMap, update)
      : await deps.jobs.regenerate(job.id, { speakerMap, ...update });
  if (!result.ok) {
    await tell(buildCommandRefusal(result.reason, mode, locale, result.retryInMs));
    return undefined;
  }
  if (changes.template.kind !== "none" && templateId === undefined) {
    await tell(sentenceReply(t(locale, "template.unreadable")));
  }
  return sentenceReply(t(locale, mode === "names" ? "speakers.saved" : "speakers.regenerating"));
}

/** The only speakers a note may mention: a typed name wins over the member and never pings. */
function membersOf(entries: SpeakerEntry[]): Record<string, string> {
  const members = entries.flatMap(({ speakerId, name, userId }) =>
    name === undefined && userId !== undefined && SLACK_USER_ID.test(userId)
      ? [[speakerId, userId] as const]
      : [],
  );
  return Object.fromEntries(members);
}

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
      return [entry.speakerId, { name, ...optional("gender", entry.gender) }];
    }),
  );
  return new Map(named);
}
