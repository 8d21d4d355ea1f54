import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { ACTIONS, speakerBlock, VIEWS } from "../../src/slack/ids.ts";
import {
  fileShareMessageEvent,
  sharedChannelEventCallback,
  viewSubmissionPayload,
} from "../fake-slack/slack-payloads.ts";
import { sendEnvelope } from "../fake-slack/slack-request.ts";
import { recordingBytes } from "../fakes/recording-bytes.ts";
import { ALICE, buttonOn, CHANNEL, eventually, SIGNING_SECRET, type Stack } from "./stack.ts";

/** A Slack Connect partner hosting a channel the bot is in: its events carry its ids. */
export const HOST = { teamId: "T0HOSTORG1", enterpriseId: "E0HOSTORG1" };

/** Texts planted under one team id, to be found nowhere once the app is uninstalled. */
export function secretsOf(teamId: string) {
  return {
    transcript: `transcript-phrase-${teamId}-4b9e`,
    speaker: `Speakername ${teamId} Quillfeather`,
    context: `channel-context-${teamId}-71ac`,
  };
}

/** Waits for the job of the thread to ask for names, names its speakers, waits for notes. */
export async function nameSpeakers(stack: Stack, ts: string, name: string): Promise<string> {
  const { jobId } = await buttonOn(stack, ts, ACTIONS.nameSpeakers);
  const values = {
    [speakerBlock.name("speaker_1")]: { name: { type: "plain_text_input", value: name } },
    [speakerBlock.name("speaker_2")]: { name: { type: "plain_text_input", value: "Lan" } },
  };
  const payload = viewSubmissionPayload({
    callbackId: VIEWS.speakerNames,
    privateMetadata: jobId,
    values,
    user: ALICE,
  });
  expect((await stack.deliver.interaction(payload)).acked).toBe(true);
  await eventually(
    () => stack.job(jobId),
    (job) => job?.stage === "done",
  );
  return jobId;
}

/**
 * A recording shared in a channel the host team runs, delivered (signed) as Slack Connect
 * sends it: the envelope names the host, its `authorizations` the install.
 */
export async function shareInHostChannel(stack: Stack, name: string): Promise<string> {
  const file = stack.fake.addFile({ name, bytes: recordingBytes(name), user: ALICE });
  const message = stack.fake.shareFile(file, { channel: CHANNEL, user: ALICE });
  const event = fileShareMessageEvent(file, { channel: CHANNEL, user: ALICE, ts: message.ts });
  const envelope = sharedChannelEventCallback(event, {
    hostTeamId: HOST.teamId,
    hostEnterpriseId: HOST.enterpriseId,
    installTeamId: stack.fake.teamId,
    eventId: newEventId(),
  });
  expect((await sendEnvelope(stack.url, SIGNING_SECRET, envelope)).status).toBe(200);
  return message.ts;
}

/**
 * The `app_uninstalled` delivery Slack's events reference publishes
 * (test/fixtures/slack/app_uninstalled.json), for `teamId`, with a fresh event id.
 */
export function publishedUninstall(teamId: string): Record<string, unknown> {
  const url = new URL("../../test/fixtures/slack/app_uninstalled.json", import.meta.url);
  const published = JSON.parse(readFileSync(url, "utf8")).payload;
  const eventTime = Math.floor(Date.now() / 1000);
  return { ...published, team_id: teamId, event_id: newEventId(), event_time: eventTime };
}

function newEventId(): string {
  return `Ev0${randomBytes(5).toString("hex").toUpperCase()}`;
}
