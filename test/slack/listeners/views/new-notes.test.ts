import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { INPUTS, VIEWS } from "../../../../src/slack/ids.ts";
import { newNotesSubmitted } from "../../../../src/slack/listeners/views/new-notes.ts";
import { t } from "../../../../src/slack/messages/catalog.ts";
import { sentenceReply } from "../../../../src/slack/views/notice-modal.ts";
import { buildRefusal } from "../../../../src/slack/views/thread-replies.ts";
import { viewSubmissionPayload } from "../../../../support/fake-slack/slack-payloads.ts";
import { platformError } from "../../../../support/helpers/fake-web-client.ts";
import {
  ALICE,
  asRequest,
  BOB,
  BOT,
  buildListenerDeps,
  buildViewArgs,
  CHANNEL,
  docxBytes,
  ephemerals,
  fakeAck,
  fixtureIds,
  knowUpload,
  LAN,
  type ListenerKit,
  OTHER_CHANNEL,
  TEAM,
} from "../../../../support/helpers/listener-args.ts";
import {
  OPENED,
  slowDown,
  textOf,
  withModalMethods,
} from "../../../../support/helpers/modal-kit.ts";
import {
  conversationsSelect,
  fileInput,
  multiUsersSelect,
  type StateValues,
  stateValues,
  staticSelect,
  textInput,
} from "../../../../support/helpers/view-state.ts";
import { loadObject } from "../../../fixtures/slack-payloads/index.ts";

let kit: ListenerKit;
let views: ReturnType<typeof withModalMethods>;
beforeEach(async () => {
  kit = await buildListenerDeps();
  views = withModalMethods(kit);
  knowRecording(UPLOADED);
  knowRecording(RECENT);
});
afterEach(() => kit.close());

const UPLOADED = "F0UPLOAD01";
const RECENT = "F0RECENT01";
const METADATA = JSON.stringify({ channelId: CHANNEL, recent: [RECENT] });
const MP3 = "here we go again.mp3";

/** Alice's mp3 of a published upload, as `files.info` gives it, under `id`. */
function knowRecording(id: string, changes: Record<string, unknown> = {}) {
  const event = loadObject("event-message-file_share-mp3", fixtureIds({ file: id })).event;
  const [file] = (event as { files: Record<string, unknown>[] }).files;
  kit.workspace.files.set(id, { ...file, ...changes });
}

interface Form {
  recording?: string;
  recent?: string;
  participants?: string[];
  extraNames?: string;
  context?: string;
  language?: string;
  template?: string;
  destination?: string;
}

/** The new-notes modal's inputs as Slack submits them. */
function formValues(form: Form): StateValues {
  const file = (id?: string) => (id === undefined ? fileInput() : fileInput({ id, name: id }));
  return stateValues([
    [INPUTS.recording.block, INPUTS.recording.action, file(form.recording)],
    [INPUTS.recentRecording.block, INPUTS.recentRecording.action, staticSelect(form.recent)],
    [
      INPUTS.participants.block,
      INPUTS.participants.action,
      multiUsersSelect(...(form.participants ?? [])),
    ],
    [INPUTS.extraNames.block, INPUTS.extraNames.action, textInput(form.extraNames)],
    [INPUTS.context.block, INPUTS.context.action, textInput(form.context)],
    [INPUTS.language.block, INPUTS.language.action, staticSelect(form.language ?? "auto")],
    [INPUTS.template.block, INPUTS.template.action, file(form.template)],
    [INPUTS.destination.block, INPUTS.destination.action, conversationsSelect(form.destination)],
  ]);
}

interface SubmitOptions {
  user?: string;
  metadata?: string;
  /** The modal's view id: the same for a second delivery of one submission. */
  viewId?: string;
  /** How long the look-ups may take before the ack goes without them. */
  decisionMs?: number;
}

async function submit(form: Form, options: SubmitOptions = {}) {
  const body = viewSubmissionPayload({
    callbackId: VIEWS.newNotes,
    privateMetadata: options.metadata ?? METADATA,
    values: formValues(form),
    user: options.user ?? ALICE,
    teamId: TEAM,
    ...(options.viewId === undefined ? {} : { viewId: options.viewId }),
  });
  const ack = fakeAck();
  const listener = newNotesSubmitted(
    kit.deps,
    options.decisionMs === undefined ? {} : { decisionMs: options.decisionMs },
  );
  await asRequest(() => listener(buildViewArgs(kit, body, { ack })));
  return ack;
}

const errorsOn = (errors: Record<string, string>) => [[{ response_action: "errors", errors }]];
const jobsIn = (channel = CHANNEL) => kit.jobs.listByChannel(TEAM, channel);

describe("newNotesSubmitted: problems shown in the modal", () => {
  it("asks for a recording and a destination when Slack's published submission has neither", async () => {
    const body = loadObject(
      "interaction-view_submission",
      fixtureIds({ callbackId: VIEWS.newNotes, privateMetadata: METADATA }),
    );
    (body.view as { state: unknown }).state = { values: formValues({}) };
    const ack = fakeAck();
    await asRequest(() => newNotesSubmitted(kit.deps)(buildViewArgs(kit, body, { ack })));
    expect(ack.mock.calls).toEqual(
      errorsOn({
        [INPUTS.recording.block]: "Upload a recording or choose a recent one.",
        [INPUTS.destination.block]: t("en", "validation.unreadable"),
      }),
    );
    expect(kit.slack.chat.postMessage).not.toHaveBeenCalled();
  });

  it("refuses a recording both uploaded and chosen, in the person's language", async () => {
    const ack = await submit(
      { recording: UPLOADED, recent: RECENT, destination: CHANNEL },
      { user: LAN },
    );
    expect(ack.mock.calls).toEqual(
      errorsOn({ [INPUTS.recording.block]: t("vi", "validation.recording_both") }),
    );
  });

  it("refuses a form whose private_metadata cannot be read", async () => {
    const ack = await submit({ recording: UPLOADED, destination: CHANNEL }, { metadata: "{" });
    expect(ack.mock.calls).toEqual(
      errorsOn({ [INPUTS.recording.block]: t("en", "validation.unreadable") }),
    );
  });

  it("refuses a recent recording the modal did not offer, without looking it up", async () => {
    const ack = await submit({ recent: UPLOADED, destination: CHANNEL });
    expect(ack.mock.calls).toEqual(
      errorsOn({ [INPUTS.recentRecording.block]: "Choose a recording from the list." }),
    );
    expect(kit.slack.files.info).not.toHaveBeenCalled();
  });

  it.each([
    ["the bot is not in", "C0NOBOT001", [ALICE], "bot_not_in"],
    ["the person is not in", OTHER_CHANNEL, undefined, "user_not_in"],
    // A private channel the bot cannot see: Slack answers channel_not_found to the bot.
    ["the bot cannot see", "C0UNKNOWN1", undefined, "bot_not_in"],
    ["Slack cannot tell about", "C0FAILING1", "fails", "unknown"],
  ] as const)("refuses a destination %s", async (_what, channel, members, problem) => {
    if (members === "fails") {
      kit.slack.conversations.info.mockRejectedValue(platformError("missing_scope"));
      kit.slack.conversations.members.mockRejectedValue(platformError("missing_scope"));
    } else if (members !== undefined) kit.workspace.members.set(channel, [...members]);
    const ack = await submit({ recording: UPLOADED, destination: channel });
    expect(ack.mock.calls).toEqual(
      errorsOn({ [INPUTS.destination.block]: t("en", `permission.destination.${problem}`) }),
    );
    expect(await jobsIn(channel)).toEqual([]);
  });

  it("says a recording Slack will not describe cannot be read, with a bad destination too", async () => {
    const ack = await submit({ recording: "F0MISSING1", destination: OTHER_CHANNEL });
    expect(ack.mock.calls).toEqual(
      errorsOn({
        [INPUTS.recording.block]: t("en", "new_notes.file_unreadable"),
        [INPUTS.destination.block]: t("en", "permission.destination.user_not_in"),
      }),
    );
  });

  it("refuses someone else's recording shared only where the person is not", async () => {
    knowRecording("F0BOBS0001", { user: BOB, channels: [OTHER_CHANNEL] });
    const ack = await submit({ recording: "F0BOBS0001", destination: CHANNEL });
    expect(ack.mock.calls).toEqual(
      errorsOn({ [INPUTS.recording.block]: t("en", "permission.recording") }),
    );
  });

  it("accepts someone else's recording shared in a conversation the person is in", async () => {
    knowRecording("F0BOBS0002", { user: BOB, channels: [CHANNEL] });
    const ack = await submit({ recording: "F0BOBS0002", destination: CHANNEL });
    expect(ack.mock.calls).toEqual([[]]);
    expect(await jobsIn()).toHaveLength(1);
  });

  it("refuses a template someone else shared only where the person is not, and starts nothing", async () => {
    knowUpload(kit, { id: "F0BOBDOCX1", name: "bob.docx", bytes: docxBytes(4) });
    kit.workspace.files.set("F0BOBDOCX1", {
      ...kit.workspace.files.get("F0BOBDOCX1"),
      user: BOB,
      groups: [OTHER_CHANNEL],
    });
    const ack = await submit({ recording: UPLOADED, template: "F0BOBDOCX1", destination: CHANNEL });
    expect(ack.mock.calls).toEqual(
      errorsOn({ [INPUTS.template.block]: t("en", "permission.template") }),
    );
    expect(kit.fileRequests()).toEqual([]);
    expect(await jobsIn()).toEqual([]);
    expect(kit.slack.chat.postMessage).not.toHaveBeenCalled();
  });

  it("takes someone else's template shared in a conversation the person is in", async () => {
    knowUpload(kit, { id: "F0BOBDOCX2", name: "bob.docx", bytes: docxBytes(5) });
    kit.workspace.files.set("F0BOBDOCX2", {
      ...kit.workspace.files.get("F0BOBDOCX2"),
      user: BOB,
      channels: [CHANNEL],
    });
    const ack = await submit({ recording: UPLOADED, template: "F0BOBDOCX2", destination: CHANNEL });
    expect(ack.mock.calls).toEqual([[]]);
    const [job] = await jobsIn();
    expect(job?.options.templateId).toBeDefined();
  });

  it("says which formats it takes when the file is not a recording", async () => {
    knowUpload(kit, { id: "F0AGENDA01", name: "agenda.pdf", filetype: "pdf", bytes: docxBytes() });
    kit.workspace.files.set("F0AGENDA01", {
      ...kit.workspace.files.get("F0AGENDA01"),
      mimetype: "application/pdf",
    });
    const ack = await submit({ recording: "F0AGENDA01", destination: CHANNEL });
    const refusal = buildRefusal("unsupported_format", "agenda.pdf", "en").text;
    expect(ack.mock.calls).toEqual(errorsOn({ [INPUTS.recording.block]: refusal }));
  });
});

describe("newNotesSubmitted: starting the notes", () => {
  it("acks, opens a thread in the destination, and starts the job there with the form's options", async () => {
    const template = knowUpload(kit, {
      id: "F0TEMPL001",
      name: "minutes.docx",
      bytes: docxBytes(),
    });
    const ack = await submit({
      recent: RECENT,
      participants: [BOB, LAN],
      extraNames: "Minh Pham, Bob Le",
      context: "Agenda: hiring",
      language: "vi",
      template,
      destination: CHANNEL,
    });
    expect(ack.mock.calls).toEqual([[]]);
    const [posted] = kit.slack.chat.postMessage.mock.calls;
    expect(posted?.[0]).toEqual({
      channel: CHANNEL,
      text: `Meeting notes for *${MP3}*, asked for by <@${ALICE}>.`,
      mrkdwn: true,
    });
    expect(ack.mock.invocationCallOrder[0]).toBeLessThan(
      kit.slack.chat.postMessage.mock.invocationCallOrder[0] ?? 0,
    );
    const threadTs = (await kit.slack.chat.postMessage.mock.results[0]?.value)?.ts;
    const [job] = await jobsIn();
    expect(job).toMatchObject({
      stage: "queued",
      origin: { teamId: TEAM, channelId: CHANNEL, threadTs, userId: ALICE, locale: "en-US" },
      source: { fileId: RECENT, filename: MP3 },
      options: {
        speakers: [{ name: "Bob Le" }, { name: "Lan Nguyen" }, { name: "Minh Pham" }],
        contextText: "Agenda: hiring",
        languageHint: "vi",
      },
    });
    const templateId = job?.options.templateId ?? "";
    expect(await kit.store.get("templates", templateId)).toMatchObject({
      filename: "minutes.docx",
    });
  });

  it("posts in the message shortcut's thread while the destination is that message's channel", async () => {
    const thread = "1700000000.000042";
    const metadata = JSON.stringify({ channelId: CHANNEL, recent: [RECENT], threadTs: thread });
    const ack = await submit({ recent: RECENT, destination: CHANNEL }, { metadata });
    expect(ack.mock.calls).toEqual([[]]);
    // No thread of the bot's own: the job answers in the message's thread.
    expect(kit.slack.chat.postMessage).not.toHaveBeenCalled();
    const [job] = await jobsIn();
    expect(job?.origin).toMatchObject({ channelId: CHANNEL, threadTs: thread, userId: ALICE });
  });

  it("opens a thread of its own when the person chose another destination than the message's", async () => {
    kit.workspace.members.set(OTHER_CHANNEL, [ALICE, BOB, BOT]);
    const thread = "1700000000.000043";
    const metadata = JSON.stringify({ channelId: CHANNEL, recent: [RECENT], threadTs: thread });
    expect(
      (await submit({ recent: RECENT, destination: OTHER_CHANNEL }, { metadata })).mock.calls,
    ).toEqual([[]]);
    expect(kit.slack.chat.postMessage).toHaveBeenCalledOnce();
    const [job] = await jobsIn(OTHER_CHANNEL);
    expect(job?.origin.threadTs).not.toBe(thread);
    expect(job?.origin.channelId).toBe(OTHER_CHANNEL);
  });

  it("refuses a thread in private_metadata that is not a message ts", async () => {
    const metadata = JSON.stringify({
      channelId: CHANNEL,
      recent: [RECENT],
      threadTs: "<!channel>",
    });
    const ack = await submit({ recent: RECENT, destination: CHANNEL }, { metadata });
    expect(ack.mock.calls).toEqual(
      errorsOn({ [INPUTS.recording.block]: t("en", "validation.unreadable") }),
    );
    expect(await jobsIn()).toEqual([]);
  });

  it("tells the person alone when the bot cannot post in the destination after all", async () => {
    kit.slack.chat.postMessage.mockRejectedValueOnce(platformError("not_in_channel"));
    await submit({ recording: UPLOADED, destination: CHANNEL });
    expect(ephemerals(kit)).toEqual([
      { channel: CHANNEL, user: ALICE, ...sentenceReply(t("en", "new_notes.not_in_channel")) },
    ]);
    expect(await jobsIn()).toEqual([]);
    // Nothing was started: the same recording may be asked for again.
    await submit({ recording: UPLOADED, destination: CHANNEL });
    expect(await jobsIn()).toHaveLength(1);
  });

  it("says the recording could not be read when the thread fails for another reason", async () => {
    kit.slack.chat.postMessage.mockRejectedValueOnce(platformError("ratelimited"));
    await submit({ recording: UPLOADED, destination: CHANNEL });
    expect(ephemerals(kit).map((reply) => reply.text)).toEqual([
      t("en", "new_notes.file_unreadable"),
    ]);
  });

  it("says on the recording input when the service would refuse it, and opens no thread", async () => {
    knowRecording("F0EMPTY001", { size: 0 });
    const ack = await submit({ recording: "F0EMPTY001", destination: CHANNEL });
    expect(ack.mock.calls).toEqual(
      errorsOn({ [INPUTS.recording.block]: buildRefusal("empty", MP3, "en").text }),
    );
    expect(kit.slack.chat.postMessage).not.toHaveBeenCalled();
    expect(await jobsIn()).toEqual([]);
  });

  it("starts the job without a template it could not read", async () => {
    const ack = await submit({ recording: UPLOADED, template: "F0NOTEMPL1", destination: CHANNEL });
    expect(ack.mock.calls).toEqual([[]]);
    const [job] = await jobsIn();
    expect(job?.options).toEqual({});
  });

  // Regression: an unreadable template was once dropped silently here, while the speaker
  // and settings modals say so.
  it("tells the person when the template they chose could not be read", async () => {
    await submit({ recording: UPLOADED, template: "F0NOTEMPL1", destination: CHANNEL });
    expect(ephemerals(kit)).toEqual([
      { channel: CHANNEL, user: ALICE, ...sentenceReply(t("en", "template.unreadable")) },
    ]);
  });

  it("submitting the same recording twice posts one thread parent, makes one job and tells nobody", async () => {
    const form = { recording: UPLOADED, destination: CHANNEL };
    const first = await submit(form, { viewId: "V0SAME0001" });
    // Slack delivers the same submission again (or Submit was pressed twice).
    const again = await submit(form, { viewId: "V0SAME0001" });
    expect(first.mock.calls).toEqual([[]]);
    expect(again.mock.calls).toEqual([[]]);
    expect(kit.slack.chat.postMessage).toHaveBeenCalledOnce();
    expect(await jobsIn()).toHaveLength(1);
    expect(ephemerals(kit)).toEqual([]);
  });

  it("answers deliveries racing each other as one: one thread, one job", async () => {
    const form = { recording: UPLOADED, destination: CHANNEL };
    const acks = await Promise.all([
      submit(form, { viewId: "V0RACE0001" }),
      submit(form, { viewId: "V0RACE0001" }),
      submit(form, { viewId: "V0RACE0001" }),
    ]);
    expect(acks.map((ack) => ack.mock.calls)).toEqual([[[]], [[]], [[]]]);
    expect(kit.slack.chat.postMessage).toHaveBeenCalledOnce();
    expect(await jobsIn()).toHaveLength(1);
  });

  it("says where the notes are already being made when the same recording is asked for again", async () => {
    await submit({ recording: UPLOADED, destination: CHANNEL }, { viewId: "V0FIRST001" });
    await submit(
      { recording: UPLOADED, destination: CHANNEL, context: "again" },
      { viewId: "V0OTHER001" },
    );
    expect(kit.slack.chat.postMessage).toHaveBeenCalledOnce();
    const jobs = await jobsIn();
    expect(jobs).toHaveLength(1);
    const thread = `p${jobs[0]?.origin.threadTs.replace(".", "")}`;
    const link = `https://fake-workspace.slack.com/archives/${CHANNEL}/${thread}`;
    expect(ephemerals(kit).map((e) => e.text)).toEqual([
      `Notes for this recording are already being made in <${link}|a thread> in <#${CHANNEL}>.`,
    ]);
  });

  it("names only the channel when Slack gives no link to the thread", async () => {
    await submit({ recording: UPLOADED, destination: CHANNEL }, { viewId: "V0FIRST002" });
    kit.slack.chat.getPermalink.mockRejectedValueOnce(new Error("message_not_found"));
    await submit(
      { recording: UPLOADED, destination: CHANNEL, context: "again" },
      { viewId: "V0OTHER002" },
    );
    expect(await jobsIn()).toHaveLength(1);
    expect(ephemerals(kit).map((e) => e.text)).toEqual([
      `Notes for this recording are already being made in <#${CHANNEL}>.`,
    ]);
  });

  it("checks a form submitted again after errors anew (the person fixed what was wrong)", async () => {
    kit.workspace.members.set("C0NOBOT001", [ALICE]);
    const form = { recording: UPLOADED, destination: "C0NOBOT001" };
    const refused = await submit(form, { viewId: "V0FIXED001" });
    expect(refused.mock.calls).toEqual(
      errorsOn({ [INPUTS.destination.block]: t("en", "permission.destination.bot_not_in") }),
    );
    kit.workspace.members.set("C0NOBOT001", [ALICE, "U0FAKEBOT"]);
    const accepted = await submit(form, { viewId: "V0FIXED001" });
    expect(accepted.mock.calls).toEqual([[]]);
    expect(await jobsIn("C0NOBOT001")).toHaveLength(1);
  });

  it("answers in time when Slack is slow, and shows in the modal how it went", async () => {
    slowDown(kit.slack.files.info, 150);
    const ack = await submit(
      { recording: UPLOADED, destination: CHANNEL },
      { viewId: OPENED.id, decisionMs: 20 },
    );
    const [answer] = ack.mock.calls[0] ?? [];
    expect(answer).toMatchObject({ response_action: "update", view: { type: "modal" } });
    expect(textOf((answer as { view: never }).view)).toContain("Slack is slow to answer");
    expect(await jobsIn()).toHaveLength(1);
    const last = views.update.mock.calls.at(-1)?.[0];
    expect(last).toMatchObject({ view_id: OPENED.id });
    expect(last).not.toHaveProperty("hash");
    expect(textOf(last?.view as never)).toContain(`a thread in <#${CHANNEL}>`);
    expect(ephemerals(kit)).toEqual([]);
  });

  it("shows in the modal what was wrong when the slow look-ups refuse", async () => {
    slowDown(kit.slack.files.info, 150);
    kit.workspace.members.set("C0NOBOT001", [ALICE]);
    const ack = await submit(
      { recording: UPLOADED, destination: "C0NOBOT001" },
      { viewId: OPENED.id, decisionMs: 20 },
    );
    expect(ack.mock.calls[0]?.[0]).toMatchObject({ response_action: "update" });
    const last = views.update.mock.calls.at(-1)?.[0];
    expect(textOf(last?.view as never)).toContain("Invite me to that conversation first");
    expect(await jobsIn("C0NOBOT001")).toEqual([]);
    expect(kit.slack.chat.postMessage).not.toHaveBeenCalled();
  });

  it("tells the person alone how it went when they closed the slow modal", async () => {
    slowDown(kit.slack.files.info, 150);
    await submit(
      { recording: UPLOADED, destination: CHANNEL },
      { viewId: "V0CLOSED01", decisionMs: 20 },
    );
    expect(ephemerals(kit).map((e) => e.text)).toEqual([
      `The notes are on their way: they will appear in a thread in <#${CHANNEL}>.`,
    ]);
  });

  it("answers a second delivery of a slow submission as the first, and starts nothing", async () => {
    slowDown(kit.slack.files.info, 150);
    const form = { recording: UPLOADED, destination: CHANNEL };
    await submit(form, { viewId: OPENED.id, decisionMs: 20 });
    const again = await submit(form, { viewId: OPENED.id, decisionMs: 20 });
    const [answer] = again.mock.calls[0] ?? [];
    expect(answer).toMatchObject({ response_action: "update" });
    expect(textOf((answer as { view: never }).view)).toContain("on their way");
    expect(kit.slack.chat.postMessage).toHaveBeenCalledOnce();
    expect(await jobsIn()).toHaveLength(1);
  });

  it("says in the modal that something went wrong when a look-up throws, and starts nothing", async () => {
    kit.deps.permissions.destination = async () => {
      throw new Error("permissions down");
    };
    const ack = await submit({ recording: UPLOADED, destination: CHANNEL });
    const [answer] = ack.mock.calls[0] ?? [];
    expect(answer).toMatchObject({ response_action: "update" });
    expect(textOf((answer as { view: never }).view)).toContain("Something went wrong on my side");
    expect(await jobsIn()).toEqual([]);
    expect(kit.logged("error")).toContain("a submission's look-ups failed");
  });

  it("only acks a submission without a user", async () => {
    const body = viewSubmissionPayload({
      callbackId: VIEWS.newNotes,
      privateMetadata: METADATA,
      values: formValues({ recording: UPLOADED, destination: CHANNEL }),
      user: ALICE,
    });
    delete body.user;
    const ack = fakeAck();
    await asRequest(() => newNotesSubmitted(kit.deps)(buildViewArgs(kit, body, { ack })));
    expect(ack.mock.calls).toEqual([[]]);
    expect(kit.slack.users.info).not.toHaveBeenCalled();
    expect(kit.slack.chat.postMessage).not.toHaveBeenCalled();
  });
});
