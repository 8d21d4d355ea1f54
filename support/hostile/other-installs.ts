import { expect } from "vitest";
import { ACTIONS } from "../../src/slack/ids.ts";
import {
  buttonValue,
  eventually,
  SIGNING_SECRET,
  type Stack,
  statusMessage,
} from "../e2e/stack.ts";
import { fileShareMessageEvent } from "../fake-slack/slack-payloads.ts";
import { sendSigned } from "../fake-slack/slack-request.ts";
import { recordingBytes } from "../fakes/recording-bytes.ts";
import { createdJobFiles, OTHER_TEAM } from "./hostile-stack.ts";

/**
 * What the OAuth copies of the hostile suites need beyond the single mode's: a job of
 * another install, and a measure of everything the app did for a request it must refuse.
 */

export const OTHER_CHANNEL = "C0OTHER001";
export const OTHER_USER = "U0OTHER01";

/** A job of the other install ({@link OTHER_TEAM}), waiting for names, and where it is. */
export interface ForeignJob {
  jobId: string;
  statusTs: string;
  threadTs: string;
}

/**
 * Someone of {@link OTHER_TEAM} shares a recording there, delivered as Slack delivers it to
 * that workspace's install; resolves once its job waits for names.
 */
export async function jobOfOtherInstall(stack: Stack, name: string): Promise<ForeignJob> {
  const team = stack.fake.team(OTHER_TEAM);
  // Again each time: adding a user or channel the workspace has replaces it as it was.
  team.addUser({ id: OTHER_USER, name: "other", real_name: "Oda Other", locale: "en-US" });
  team.addChannel({ id: OTHER_CHANNEL, name: "other-sync", members: [OTHER_USER] });
  const file = team.addFile({ name, bytes: recordingBytes(name), user: OTHER_USER });
  const message = team.shareFile(file, { channel: OTHER_CHANNEL, user: OTHER_USER, text: "" });
  const event = fileShareMessageEvent(file, {
    channel: OTHER_CHANNEL,
    user: OTHER_USER,
    ts: message.ts,
  });
  const sent = await sendSigned(
    stack.url,
    SIGNING_SECRET,
    JSON.stringify(team.envelope(event)),
    "application/json",
  );
  expect(sent.status).toBe(200);
  const status = await eventually(
    () => statusMessage(team.thread(OTHER_CHANNEL, message.ts)),
    (m) => buttonValue(m, ACTIONS.nameSpeakers) !== undefined,
    { what: `${name}'s job in ${OTHER_TEAM} asking for names` },
  );
  return {
    jobId: buttonValue(status, ACTIONS.nameSpeakers) ?? "",
    statusTs: status?.ts ?? "",
    threadTs: message.ts,
  };
}

/** Stages in which a job does nothing until someone acts. */
const WAITING: readonly string[] = ["naming", "reviewing"];

/**
 * Waits until the app is quiet, then starts counting what it does; the function returned
 * waits until it is quiet again and says what it did since: its Web API calls (`auth.test`
 * aside: readiness asks it on its own schedule), ephemeral messages, `response_url` posts,
 * modals, downloads, jobs created, Note Service submissions. All empty: the app did nothing.
 */
export async function activitySince(
  stack: Stack,
): Promise<() => Promise<Record<string, unknown[]>>> {
  // Jobs still on their way redraw their status on each poll: wait until each waits for a
  // person (or is over), so whatever happens next is the request's doing.
  await eventually(
    async () => {
      const ids = await stack.app.jobs.repo.listActiveIds();
      const jobs = await Promise.all(ids.map((id) => stack.job(id)));
      return jobs.filter((j) => j !== undefined && !WAITING.includes(j.stage)).length;
    },
    (moving) => moving === 0,
    { what: "every job waiting for a person" },
  );
  await stack.settled();
  const at = {
    calls: stack.fake.calls.length,
    ephemerals: stack.fake.ephemerals.length,
    posts: stack.fake.responseUrlPosts.length,
    views: stack.fake.views.length,
    downloads: stack.fake.downloads.length,
    jobs: createdJobFiles(stack).length,
    audio: stack.emulator.stats.audioSubmissions.length,
  };
  return async () => {
    await stack.settled();
    return {
      calls: stack.fake.calls
        .slice(at.calls)
        .filter((c) => c.method !== "auth.test")
        .map((c) => c.method),
      ephemerals: stack.fake.ephemerals.slice(at.ephemerals).map((e) => e.text),
      responseUrlPosts: stack.fake.responseUrlPosts.slice(at.posts).map((p) => p.body),
      views: stack.fake.views.slice(at.views).map((v) => v.op),
      downloads: stack.fake.downloads.slice(at.downloads).map((d) => d.path),
      jobsCreated: createdJobFiles(stack).slice(at.jobs),
      audioSubmissions: stack.emulator.stats.audioSubmissions.slice(at.audio),
    };
  };
}

/** What {@link activitySince} reports when the app did nothing. */
export const NOTHING_DONE = {
  calls: [],
  ephemerals: [],
  responseUrlPosts: [],
  views: [],
  downloads: [],
  jobsCreated: [],
  audioSubmissions: [],
};
