import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tenantOf } from "../../../../src/jobs/index.ts";
import { VIEWS } from "../../../../src/slack/ids.ts";
import { installKeyOf } from "../../../../src/slack/installs/install-key.ts";
import { meetingNotesCommand } from "../../../../src/slack/listeners/commands/meeting-notes.ts";
import {
  buildCancelReply,
  buildChannelStatus,
  buildHelpMessage,
  buildPermissionRefusal,
  buildUnknownCommand,
} from "../../../../src/slack/views/command-replies.ts";
import { buildNewNotesModal } from "../../../../src/slack/views/new-notes-modal.ts";
import { buildLoadingModal } from "../../../../src/slack/views/notice-modal.ts";
import { buildSettingsModal } from "../../../../src/slack/views/settings-modal.ts";
import { platformError } from "../../../../support/helpers/fake-web-client.ts";
import {
  ADMIN,
  ALICE,
  asRequest,
  BOB,
  buildCommandArgs,
  buildListenerDeps,
  CHANNEL,
  fakeAck,
  fixtureIds,
  GUEST,
  LAN,
  type ListenerKit,
  OTHER_CHANNEL,
  startJob,
  TEAM,
} from "../../../../support/helpers/listener-args.ts";
import {
  OPENED,
  shownViews,
  textOf,
  withModalMethods,
} from "../../../../support/helpers/modal-kit.ts";
import { loadForm, loadObject } from "../../../fixtures/slack-payloads/index.ts";

let kit: ListenerKit;
let views: ReturnType<typeof withModalMethods>;
beforeEach(async () => {
  kit = await buildListenerDeps();
  views = withModalMethods(kit);
});

/** The modal opened with the command's trigger at once, then filled with `view`. */
function expectOpenedThenFilled(view: unknown) {
  expect(
    views.open.mock.calls.map(([args]) => ("trigger_id" in args ? args.trigger_id : "")),
  ).toEqual([TRIGGER]);
  expect(views.update.mock.calls).toEqual([[{ view_id: OPENED.id, hash: OPENED.hash, view }]]);
}
afterEach(() => kit.close());

const RESPONSE_URL = "https://hooks.slack.com/commands/T0FAKE/1/listener-test";
const TRIGGER = "1700000000.1.0123456789abcdef0123456789abcdef";

/** `/meeting-notes <text>` as Slack posts it (bolt-python's published form), parsed. */
function slash(text: string, user = ALICE, channel = CHANNEL): Record<string, string> {
  const form = loadForm(
    "command-slash",
    fixtureIds({
      user,
      channel,
      command: "/meeting-notes",
      responseUrl: RESPONSE_URL,
      trigger: TRIGGER,
    }),
  );
  return { ...Object.fromEntries(new URLSearchParams(form)), text };
}

/** The command, run as a request of `install` (default the single-token mode's) in TEAM. */
async function run(fields: Record<string, unknown>, install?: string) {
  const ack = fakeAck();
  const listener = () => meetingNotesCommand(kit.deps)(buildCommandArgs(kit, fields, { ack }));
  await asRequest(listener, TEAM, install);
  return ack;
}

describe("/meeting-notes help and unknown words", () => {
  it("answers help on the ack itself when the person is known, in their language", async () => {
    await kit.deps.directory.user(LAN);
    kit.slack.users.info.mockClear();
    const ack = await run(slash("help", LAN));
    expect(ack.mock.calls).toEqual([
      [{ response_type: "ephemeral", ...buildHelpMessage("vi", { canPrepare: false }) }],
    ]);
    expect(kit.respond).not.toHaveBeenCalled();
    expect(kit.slack.users.info).not.toHaveBeenCalled();
  });

  it("quotes an unknown word on the ack when the person is known", async () => {
    await kit.deps.directory.user(ALICE);
    const ack = await run(slash("Dance now"));
    expect(ack.mock.calls).toEqual([
      [
        {
          response_type: "ephemeral",
          ...buildUnknownCommand("Dance", "en", { canPrepare: false }),
        },
      ],
    ]);
    expect(JSON.stringify(ack.mock.calls)).toContain("“Dance”");
    expect(kit.respond).not.toHaveBeenCalled();
  });

  it("acks at once, then answers help through response_url when the person is not cached", async () => {
    const ack = await run(slash("  HELP  ", LAN));
    expect(ack.mock.calls).toEqual([[]]);
    expect(kit.slack.users.info).toHaveBeenCalledWith({ user: LAN, include_locale: true });
    expect(kit.respond.mock.calls).toEqual([
      [RESPONSE_URL, buildHelpMessage("vi", { canPrepare: false })],
    ]);
  });

  it("acks, then quotes an unknown word through response_url when the person is not cached", async () => {
    const ack = await run(slash("frobnicate"));
    expect(ack.mock.calls).toEqual([[]]);
    expect(kit.respond.mock.calls).toEqual([
      [RESPONSE_URL, buildUnknownCommand("frobnicate", "en", { canPrepare: false })],
    ]);
  });
});

describe("/meeting-notes status", () => {
  it("lists this channel's jobs and no other channel's", async () => {
    const here = await startJob(kit, { filename: "weekly-sync.m4a" });
    await startJob(kit, { channelId: OTHER_CHANNEL, userId: BOB, filename: "elsewhere.mp3" });
    const ack = await run(slash("status"));
    expect(ack.mock.calls).toEqual([[]]);
    const expected = buildChannelStatus([here], { locale: "en", now: kit.clock.now });
    expect(kit.respond.mock.calls).toEqual([[RESPONSE_URL, expected]]);
    const said = JSON.stringify(kit.respond.mock.calls);
    expect(said).toContain("weekly-sync.m4a");
    expect(said).not.toContain("elsewhere.mp3");
  });

  it("does the work, not the instant reply, for a person already known", async () => {
    await kit.deps.directory.user(ALICE);
    const ack = await run(slash("status"));
    expect(ack.mock.calls).toEqual([[]]);
    expect(kit.respond.mock.calls[0]?.[1].text).toMatch(/^No meeting notes/);
  });

  it("says there is nothing yet in a channel without jobs", async () => {
    await run(slash("status"));
    expect(kit.respond.mock.calls[0]?.[1].text).toMatch(/^No meeting notes/);
  });
});

describe("/meeting-notes with installs by OAuth: the install's own jobs and settings", () => {
  // Each install's jobs and settings are kept under its tenant, not the bare team id (the
  // single mode's): status, cancel and the new-notes modal read there, as every listener.
  const INSTALL = installKeyOf({ teamId: TEAM });
  const asInstall = (fields: Record<string, unknown>) => run(fields, INSTALL);

  it("status lists the install's jobs of the channel", async () => {
    const here = await startJob(kit, { filename: "weekly-sync.m4a", install: INSTALL });
    await asInstall(slash("status"));
    const expected = buildChannelStatus([here], { locale: "en", now: kit.clock.now });
    expect(kit.respond.mock.calls).toEqual([[RESPONSE_URL, expected]]);
  });

  it("cancel finds and cancels the install's job", async () => {
    const job = await startJob(kit, { install: INSTALL });
    await asInstall(slash(`cancel ${job.id}`));
    expect(await kit.jobs.get(job.id)).toMatchObject({ stage: "canceled", canceledBy: ALICE });
  });

  it("the new-notes modal ticks review where the install's channel settings ask for it", async () => {
    await kit.services.settings.set(tenantOf(INSTALL, TEAM), CHANNEL, {
      autoTranscribe: true,
      review: true,
    });
    await asInstall(slash(""));
    const view = buildNewNotesModal({
      locale: "en",
      channelId: CHANNEL,
      recentRecordings: [],
      review: true,
    });
    expectOpenedThenFilled(view);
  });
});

describe("/meeting-notes settings", () => {
  it("opens the settings modal, with the channel's current settings, for a member", async () => {
    await kit.services.settings.set(TEAM, CHANNEL, { autoTranscribe: false, languageHint: "vi" });
    const ack = await run(slash("settings"));
    expect(ack.mock.calls).toEqual([[]]);
    const view = buildSettingsModal(
      { autoTranscribe: false, languageHint: "vi" },
      { locale: "en", channelId: CHANNEL },
    );
    expectOpenedThenFilled(view);
    expect(kit.respond).not.toHaveBeenCalled();
  });

  it("opens before asking Slack who may change the settings", async () => {
    await run(slash("settings", LAN));
    const [opened] = views.open.mock.calls[0] ?? [];
    expect(opened?.view).toEqual(
      buildLoadingModal(
        {
          callbackId: VIEWS.channelSettings,
          privateMetadata: JSON.stringify({ channelId: CHANNEL, locale: "en" }),
          title: "Channel settings",
        },
        "en",
      ),
    );
    expect(views.open.mock.invocationCallOrder[0]).toBeLessThan(
      Math.min(...kit.slack.users.info.mock.invocationCallOrder),
    );
    expect(shownViews(kit).at(-1)?.private_metadata).toBe(
      JSON.stringify({ channelId: CHANNEL, locale: "vi" }),
    );
  });

  it.each([
    ["a guest", GUEST, CHANNEL],
    ["someone not in the channel", ALICE, OTHER_CHANNEL],
  ])("shows %s who may change the settings, in the modal", async (_who, user, channel) => {
    await run(slash("settings", user, channel));
    const refusal = buildPermissionRefusal("channel_member", "settings", "en");
    const shown = shownViews(kit).at(-1);
    expect(textOf(shown)).toContain(refusal.text);
    expect(shown?.submit).toBeUndefined();
    expect(kit.respond).not.toHaveBeenCalled();
  });
});

describe("/meeting-notes cancel", () => {
  it("cancels the person's own running job before the channel's newer one", async () => {
    const own = await startJob(kit, { userId: ALICE, filename: "mine.m4a" });
    const other = await startJob(kit, { userId: BOB, filename: "bobs.m4a" });
    await run(slash("cancel"));
    expect(kit.respond.mock.calls).toEqual([[RESPONSE_URL, buildCancelReply(own, "en")]]);
    expect(await kit.jobs.get(own.id)).toMatchObject({ stage: "canceled", canceledBy: ALICE });
    expect(await kit.jobs.get(other.id)).toMatchObject({ stage: "queued" });
  });

  it("cancels the job named by its id", async () => {
    const first = await startJob(kit, { filename: "first.m4a" });
    const second = await startJob(kit, { filename: "second.m4a" });
    await run(slash(`cancel ${first.id}`));
    expect(await kit.jobs.get(first.id)).toMatchObject({ stage: "canceled" });
    expect(await kit.jobs.get(second.id)).toMatchObject({ stage: "queued" });
  });

  it("says so when nothing is running in the channel", async () => {
    const job = await startJob(kit);
    await kit.jobs.cancel(job.id, ALICE);
    await run(slash("cancel"));
    expect(kit.respond.mock.calls).toEqual([[RESPONSE_URL, buildCancelReply(undefined, "en")]]);
    expect(kit.respond.mock.calls[0]?.[1].text).toBe(
      "There is no running job to cancel in this channel.",
    );
  });

  it("refuses someone else's job to a member who is not an admin, and leaves it running", async () => {
    const job = await startJob(kit, { userId: BOB });
    await run(slash("cancel"));
    const refusal = buildPermissionRefusal("starter_or_admin", "cancel", "en");
    expect(kit.respond.mock.calls).toEqual([[RESPONSE_URL, refusal]]);
    expect(await kit.jobs.get(job.id)).toMatchObject({ stage: "queued" });
  });

  it("lets a workspace admin in the channel cancel anyone's job", async () => {
    kit.workspace.members.set(CHANNEL, [...(kit.workspace.members.get(CHANNEL) ?? []), ADMIN]);
    const job = await startJob(kit, { userId: BOB });
    await run(slash("cancel", ADMIN));
    expect(await kit.jobs.get(job.id)).toMatchObject({ stage: "canceled", canceledBy: ADMIN });
  });
});

describe("/meeting-notes with no subcommand", () => {
  it("opens the new-notes modal offering the channel's recent recordings only", async () => {
    const shared = (name: string) =>
      (loadObject(name, fixtureIds()).event as { files: Record<string, unknown>[] }).files;
    const mp3 = shared("event-message-file_share-mp3");
    const image = shared("event-message-file_share-image");
    kit.workspace.messages.set(CHANNEL, [
      { ts: "1700000000.000100", user: ALICE, text: "", files: mp3 },
      { ts: "1700000000.000200", user: ALICE, text: "", files: image },
    ]);
    const ack = await run(slash(""));
    expect(ack.mock.calls).toEqual([[]]);
    const fileId = String(mp3[0]?.id);
    const view = buildNewNotesModal({
      locale: "en",
      channelId: CHANNEL,
      recentRecordings: [{ fileId, name: "here we go again.mp3" }],
    });
    expectOpenedThenFilled(view);
    expect(JSON.parse(String(view.private_metadata))).toEqual({
      channelId: CHANNEL,
      recent: [fileId],
      locale: "en",
    });
  });

  it("offers at most ten recent recordings, newest first, each once", async () => {
    const mp3 = (i: number) =>
      (
        loadObject(
          "event-message-file_share-mp3",
          fixtureIds({ file: `F0REC${String(i).padStart(5, "0")}` }),
        ).event as { files: Record<string, unknown>[] }
      ).files;
    const messages = Array.from({ length: 12 }, (_, i) => ({
      ts: `1700000000.0001${String(i).padStart(2, "0")}`,
      user: ALICE,
      text: "",
      files: mp3(i),
    }));
    // The newest message shares again the file of the one before it.
    messages.push({ ts: "1700000000.000200", user: BOB, text: "", files: mp3(11) });
    kit.workspace.messages.set(CHANNEL, messages);
    await run(slash(""));
    const view = shownViews(kit).at(-1);
    const offered = JSON.parse(String(view?.private_metadata)).recent;
    expect(offered).toEqual(
      [11, 10, 9, 8, 7, 6, 5, 4, 3, 2].map((i) => `F0REC${String(i).padStart(5, "0")}`),
    );
  });

  it("still opens the modal when the channel's history cannot be read", async () => {
    kit.slack.conversations.history.mockRejectedValueOnce(platformError("not_in_channel"));
    await run(slash(""));
    const view = buildNewNotesModal({ locale: "en", channelId: CHANNEL, recentRecordings: [] });
    expectOpenedThenFilled(view);
  });

  it("offers the uploads it saw in the channel first, without reading history when they are enough", async () => {
    for (let i = 0; i < 12; i++) {
      await kit.services.uploads.saw(TEAM, CHANNEL, {
        ts: `1700000000.0003${String(i).padStart(2, "0")}`,
        userId: ALICE,
        files: [
          { id: `F0SEEN${String(i).padStart(4, "0")}`, name: `seen-${i}.m4a`, recording: true },
        ],
      });
    }
    await run(slash(""));
    const offered = JSON.parse(String(shownViews(kit).at(-1)?.private_metadata)).recent;
    expect(offered).toEqual(
      [11, 10, 9, 8, 7, 6, 5, 4, 3, 2].map((i) => `F0SEEN${String(i).padStart(4, "0")}`),
    );
    expect(kit.slack.conversations.history).not.toHaveBeenCalled();
  });

  it("says in its upload field why none is offered when Slack holds the read of history", async () => {
    kit.slack.conversations.history.mockRejectedValueOnce(
      Object.assign(new Error("A rate-limit has been reached"), {
        code: "slack_webapi_rate_limited_error",
        retryAfter: 60,
      }),
    );
    await run(slash(""));
    const view = buildNewNotesModal({
      locale: "en",
      channelId: CHANNEL,
      recentRecordings: [],
      recentBusy: true,
    });
    expectOpenedThenFilled(view);
    expect(JSON.stringify(view.blocks)).toContain(
      "Recent recordings cannot be listed for a minute",
    );
  });

  it("opens at once with a loading view, then fills it in the person's language", async () => {
    await run(slash("", LAN));
    const [opened] = views.open.mock.calls[0] ?? [];
    expect(opened?.view.callback_id).toBe(VIEWS.newNotes);
    expect(opened?.view).not.toHaveProperty("submit");
    expect(textOf(opened?.view as never)).toContain("One moment");
    expect(views.open.mock.invocationCallOrder[0]).toBeLessThan(
      Math.min(
        ...kit.slack.users.info.mock.invocationCallOrder,
        ...kit.slack.conversations.history.mock.invocationCallOrder,
      ),
    );
    expect(shownViews(kit).at(-1)?.title.text).toBe("Biên bản cuộc họp mới");
  });

  it("says so through response_url when Slack will not open the modal in time", async () => {
    views.open.mockRejectedValueOnce(platformError("expired_trigger_id"));
    await run(slash(""));
    expect(kit.respond.mock.calls).toEqual([
      [RESPONSE_URL, expect.objectContaining({ text: expect.stringMatching(/in time/) })],
    ]);
    expect(views.update).not.toHaveBeenCalled();
  });
});

describe("a malformed slash command", () => {
  it("is acked at once and nothing else happens when the form has no text", async () => {
    const { text: _text, ...withoutText } = slash("help");
    const ack = await run(withoutText);
    expect(ack.mock.calls).toEqual([[]]);
    expect(kit.respond).not.toHaveBeenCalled();
    expect(kit.slack.views.open).not.toHaveBeenCalled();
    expect(kit.slack.users.info).not.toHaveBeenCalled();
    expect(kit.logged("warn")).toEqual(["a malformed slash command"]);
  });
});
