import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SlackFile } from "../../../../src/slack/directory/recording-file.ts";
import { workspaceLeft } from "../../../../src/slack/listeners/events/app-uninstalled.ts";
import {
  startRecordings,
  takeKeptUpload,
  tellKeptUploadWaits,
} from "../../../../src/slack/listeners/events/start-recordings.ts";
import type { KeptUpload } from "../../../../src/slack/listeners/pending-starts.ts";
import { replayPendingStart } from "../../../../src/slack/listeners/replay-pending.ts";
import { buildStoreNotice } from "../../../../src/slack/views/thread-replies.ts";
import { StoreFault } from "../../../../support/helpers/failing-store.ts";
import {
  ALICE,
  asRequest,
  buildEventArgs,
  buildListenerDeps,
  CHANNEL,
  fixtureIds,
  type ListenerKit,
  startJob,
  TEAM,
} from "../../../../support/helpers/listener-args.ts";
import { loadObject } from "../../../fixtures/slack-payloads/index.ts";

/**
 * The upload listener while the store fails: Bolt acked the event already and Slack will
 * not send it again, so each file is kept for the journal's replay — or, when even that
 * fails, its thread hears at once that it was not taken.
 */
let kit: ListenerKit;
let down: StoreFault["mode"] = "all";
beforeEach(async () => {
  down = "all";
  const fault = new StoreFault(() => down);
  kit = await buildListenerDeps({ wrapStore: (store) => fault.wrap(store) });
});
afterEach(() => kit.close());

const THREAD = "1700000400.000100";
const recording = (): SlackFile => {
  const envelope = loadObject("event-message-file_share-mp3", fixtureIds());
  const [file] = (envelope.event as { files: SlackFile[] }).files;
  if (file === undefined) throw new Error("no file");
  return { ...file, shares: { public: { [CHANNEL]: [{ ts: THREAD }] } }, channels: [CHANNEL] };
};

const share = (files: SlackFile[], text?: string) =>
  asRequest(() =>
    startRecordings(kit.deps, {
      channelId: CHANNEL,
      userId: ALICE,
      threadTs: THREAD,
      text,
      files,
    }),
  );
const threadReplies = () => kit.slack.chat.postMessage.mock.calls.map(([args]) => args);

describe("an upload the store cannot take", () => {
  it("is kept with what replaying it needs, and nothing of where else it was shared", async () => {
    const file = recording();
    await share([file], "Agenda: hiring");
    expect(kit.kept).toHaveLength(1);
    const [kept] = kit.kept;
    expect(kept).toMatchObject({
      kind: "upload",
      origin: { teamId: TEAM, channelId: CHANNEL, threadTs: THREAD, userId: ALICE },
      text: "Agenda: hiring",
      file: { id: file.id, name: file.name, url_private_download: file.url_private_download },
      attempt: { claimed: false },
    });
    expect(kept?.kind === "upload" ? Object.keys(kept.file) : []).not.toContain("shares");
    expect(kept?.kind === "upload" ? Object.keys(kept.file) : []).not.toContain("channels");
    expect(threadReplies()).toEqual([]);
  });

  it("is said lost at once in its thread when even the journal cannot keep it", async () => {
    kit.deps.pending.keep = async () => false;
    const file = recording();
    await share([file]);
    expect(threadReplies()).toEqual([
      { channel: CHANNEL, thread_ts: THREAD, ...buildStoreNotice("upload_lost", file.name, "en") },
    ]);
  });

  it("is said lost once, however many of its events (and Slack's retries) arrive", async () => {
    // Slack sends an upload as a file_share message and a file_shared event, and retries
    // each it counts as failed: the fault suite saw its thread told three times.
    kit.deps.pending.keep = async () => false;
    const file = recording();
    await share([file]);
    await share([file]);
    await share([file]);
    expect(threadReplies()).toEqual([
      { channel: CHANNEL, thread_ts: THREAD, ...buildStoreNotice("upload_lost", file.name, "en") },
    ]);
  });

  it("is taken once the store is back; while it is not, its thread hears once that it waits", async () => {
    await share([recording()], "Agenda");
    const [entry] = kit.kept as KeptUpload[];
    if (entry === undefined) throw new Error("nothing kept");
    const again = await takeKeptUpload(kit.deps, entry);
    expect(again.done).toBe(false);
    const kept = again.done ? entry : again.entry;
    const told = await tellKeptUploadWaits(kit.deps, kept, 0);
    expect(told.told).toBe(true);
    expect(await tellKeptUploadWaits(kit.deps, told, 0)).toBe(told);
    expect(threadReplies()).toEqual([
      {
        channel: CHANNEL,
        thread_ts: THREAD,
        ...buildStoreNotice("upload_waiting", entry.file.name, "en"),
      },
    ]);
    down = "none";
    expect(await takeKeptUpload(kit.deps, told)).toEqual({ done: true });
    expect(await takeKeptUpload(kit.deps, told)).toEqual({ done: true });
    const jobs = await kit.jobs.listByChannel(TEAM, CHANNEL);
    expect(jobs.map((job) => job.options.contextText)).toEqual(["Agenda"]);
  });
});

describe("an uninstall the store cannot carry out", () => {
  it("is kept, and the workspace's data is deleted when it is replayed", async () => {
    down = "none";
    const job = await startJob(kit, { teamId: TEAM });
    down = "all";
    const body = { team_id: TEAM, event: { type: "app_uninstalled" } };
    await asRequest(() => workspaceLeft(kit.deps)(buildEventArgs<"app_uninstalled">(kit, body)));
    const [kept] = kit.kept;
    expect(kept).toMatchObject({ kind: "forget", teamIds: [TEAM] });
    if (kept === undefined) throw new Error("nothing kept");
    const replay = replayPendingStart(kit.deps);
    expect(await replay(kept)).toEqual({ done: false });
    down = "none";
    expect(await kit.jobs.get(job.id)).toBeDefined();
    expect(await replay(kept)).toEqual({ done: true });
    expect(await kit.jobs.get(job.id)).toBeUndefined();
  });
});
