import type { ModalView } from "@slack/types";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChannelSettings } from "../../../../src/jobs/index.ts";
import { INPUTS, VIEWS } from "../../../../src/slack/ids.ts";
import { channelSettingsSubmitted } from "../../../../src/slack/listeners/views/channel-settings.ts";
import { t } from "../../../../src/slack/messages/catalog.ts";
import {
  buildSettingsAnnouncement,
  buildSettingsSaved,
  permissionSentence,
} from "../../../../src/slack/views/command-replies.ts";
import { sentenceReply } from "../../../../src/slack/views/notice-modal.ts";
import { viewSubmissionPayload } from "../../../../support/fake-slack/slack-payloads.ts";
import { platformError } from "../../../../support/helpers/fake-web-client.ts";
import {
  ALICE,
  asRequest,
  buildListenerDeps,
  buildViewArgs,
  CHANNEL,
  docxBytes,
  ephemerals,
  fakeAck,
  GUEST,
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
  checkboxes,
  fileInput,
  radioButtons,
  type StateValues,
  stateValues,
  staticSelect,
  textInput,
} from "../../../../support/helpers/view-state.ts";

let kit: ListenerKit;
let views: ReturnType<typeof withModalMethods>;
beforeEach(async () => {
  kit = await buildListenerDeps();
  views = withModalMethods(kit);
});
afterEach(() => kit.close());

interface Form {
  auto?: "on" | "off";
  language?: string;
  context?: string;
  template?: string;
  clearTemplate?: boolean;
}

/** The settings modal's inputs as Slack submits them. */
function formValues(form: Form): StateValues {
  const { autoTranscribe, language, context, template, clearTemplate } = INPUTS;
  const file =
    form.template === undefined ? fileInput() : fileInput({ id: form.template, name: "t" });
  return stateValues([
    [autoTranscribe.block, autoTranscribe.action, radioButtons(form.auto)],
    [language.block, language.action, staticSelect(form.language ?? "auto")],
    [context.block, context.action, textInput(form.context)],
    [template.block, template.action, file],
    [
      clearTemplate.block,
      clearTemplate.action,
      form.clearTemplate ? checkboxes(clearTemplate.action) : checkboxes(),
    ],
  ]);
}

async function submit(
  form: Form,
  options: {
    user?: string;
    channel?: string;
    metadata?: string;
    viewId?: string;
    decisionMs?: number;
  } = {},
) {
  const body = viewSubmissionPayload({
    callbackId: VIEWS.channelSettings,
    privateMetadata: options.metadata ?? JSON.stringify({ channelId: options.channel ?? CHANNEL }),
    values: formValues(form),
    user: options.user ?? ALICE,
    teamId: TEAM,
    ...(options.viewId === undefined ? {} : { viewId: options.viewId }),
  });
  const ack = fakeAck();
  const budget = options.decisionMs === undefined ? {} : { decisionMs: options.decisionMs };
  await asRequest(() =>
    channelSettingsSubmitted(kit.deps, budget)(buildViewArgs(kit, body, { ack })),
  );
  return ack;
}

const BLOCK = INPUTS.autoTranscribe.block;
const errorsOn = (errors: Record<string, string>) => [[{ response_action: "errors", errors }]];
const settings = (channel = CHANNEL) => kit.services.settings.get(TEAM, channel);
const announcements = () => kit.slack.chat.postMessage.mock.calls.map(([args]) => args);
const saved = (locale: "en" | "vi" = "en") => ({
  channel: CHANNEL,
  user: locale === "en" ? ALICE : LAN,
  ...buildSettingsSaved(locale),
});

async function withTemplate(): Promise<ChannelSettings> {
  const docx = docxBytes(7);
  const id = await kit.services.templates.save(
    { teamId: TEAM, channelId: CHANNEL },
    "old.docx",
    docx,
    {
      pinned: true,
    },
  );
  const current = {
    autoTranscribe: true,
    canvas: true,
    transcript: true,
    mentions: false,
    review: false,
    templateId: id,
  };
  await kit.services.settings.set(TEAM, CHANNEL, current);
  return current;
}

describe("channelSettingsSubmitted: refused on the modal", () => {
  it.each([
    ["a guest", GUEST, CHANNEL],
    ["someone not in the channel", ALICE, OTHER_CHANNEL],
  ])("tells %s who may change the settings, and saves nothing", async (_who, user, channel) => {
    const ack = await submit({ auto: "off" }, { user, channel });
    expect(ack.mock.calls).toEqual(
      errorsOn({ [BLOCK]: permissionSentence("channel_member", "settings", "en") }),
    );
    expect(await settings(channel)).toEqual({
      autoTranscribe: true,
      canvas: true,
      transcript: true,
      mentions: false,
      review: false,
    });
    expect(announcements()).toEqual([]);
  });

  it("refuses a template the member did not upload and cannot see, and changes nothing", async () => {
    const before = await withTemplate();
    knowUpload(kit, { id: "F0BOBDOCX3", name: "bob.docx", bytes: docxBytes(6) });
    kit.workspace.files.set("F0BOBDOCX3", {
      ...kit.workspace.files.get("F0BOBDOCX3"),
      user: "U0BOB00001",
      groups: [OTHER_CHANNEL],
    });
    const ack = await submit({ auto: "off", template: "F0BOBDOCX3" });
    expect(ack.mock.calls).toEqual(
      errorsOn({ [INPUTS.template.block]: t("en", "permission.template") }),
    );
    expect(await settings()).toEqual(before);
    expect(kit.fileRequests()).toEqual([]);
    expect(announcements()).toEqual([]);
  });

  it("refuses a member removed from the channel since the modal opened", async () => {
    kit.workspace.members.set(CHANNEL, [LAN, GUEST, "U0FAKEBOT"]);
    const ack = await submit({ auto: "off" });
    expect(ack.mock.calls).toEqual(
      errorsOn({ [BLOCK]: permissionSentence("channel_member", "settings", "en") }),
    );
    expect((await settings()).autoTranscribe).toBe(true);
  });

  it("refuses a form without the on/off choice", async () => {
    const ack = await submit({});
    expect(ack.mock.calls).toEqual(errorsOn({ [BLOCK]: t("en", "validation.unreadable") }));
  });

  it("refuses a form that does not say its channel", async () => {
    const ack = await submit({ auto: "off" }, { metadata: "not json" });
    expect(ack.mock.calls).toEqual(errorsOn({ [BLOCK]: t("en", "validation.unreadable") }));
    expect(kit.slack.conversations.members).not.toHaveBeenCalled();
  });
});

describe("channelSettingsSubmitted: saved", () => {
  it("saves the settings, tells the person, and says in the channel who changed what", async () => {
    const ack = await submit({ auto: "off", language: "vi", context: "Glossary: OKR" });
    expect(ack.mock.calls).toEqual([[]]);
    const after = {
      autoTranscribe: false,
      languageHint: "vi",
      contextText: "Glossary: OKR",
      canvas: true,
      transcript: true,
      mentions: false,
      review: false,
    };
    expect(await settings()).toEqual(after);
    expect(ephemerals(kit)).toEqual([saved()]);
    const announcement = buildSettingsAnnouncement(ALICE, { autoTranscribe: true }, after, "en");
    expect(announcements()).toEqual([{ channel: CHANNEL, ...announcement }]);
    expect(announcement?.text).toContain(`<@${ALICE}>`);
  });

  it("answers in the person's language", async () => {
    await submit({ auto: "off" }, { user: LAN });
    expect(ephemerals(kit)).toEqual([saved("vi")]);
  });

  it("announces nothing when nothing changed", async () => {
    await submit({ auto: "on" });
    expect(ephemerals(kit)).toEqual([saved()]);
    expect(announcements()).toEqual([]);
  });

  it("keeps a new template for the channel and says so", async () => {
    const id = knowUpload(kit, { id: "F0TEMPL003", name: "minutes.docx", bytes: docxBytes(3) });
    await submit({ auto: "on", template: id });
    const templateId = (await settings()).templateId ?? "";
    expect(await kit.store.get("templates", templateId)).toMatchObject({
      filename: "minutes.docx",
    });
    expect(JSON.stringify(announcements())).toContain(t("en", "settings.change.template_set"));
  });

  it("keeps the current template and says so when the new one cannot be read", async () => {
    const current = await withTemplate();
    const id = knowUpload(kit, { id: "F0NOTDOCX1", name: "notes.txt", bytes: new Uint8Array(9) });
    await submit({ auto: "on", template: id });
    expect(await settings()).toEqual(current);
    expect(ephemerals(kit)).toEqual([
      saved(),
      { channel: CHANNEL, user: ALICE, ...sentenceReply(t("en", "template.unreadable")) },
    ]);
    expect(kit.logged("warn")).toContain("could not keep the template");
  });

  it("stops using the template when asked to", async () => {
    await withTemplate();
    await submit({ auto: "on", clearTemplate: true });
    expect(await settings()).toEqual({
      autoTranscribe: true,
      canvas: true,
      transcript: true,
      mentions: false,
      review: false,
    });
    expect(JSON.stringify(announcements())).toContain(t("en", "settings.change.template_cleared"));
  });

  it("keeps the saved settings when the announcement cannot be posted", async () => {
    kit.slack.chat.postMessage.mockRejectedValueOnce(platformError("is_archived"));
    await submit({ auto: "off" });
    expect(await settings()).toEqual({
      autoTranscribe: false,
      canvas: true,
      transcript: true,
      mentions: false,
      review: false,
    });
    expect(kit.logged("warn")).toEqual(["could not announce a settings change"]);
  });
});

describe("channelSettingsSubmitted: in time, once", () => {
  it("answers a second delivery as the first did, and announces the change once", async () => {
    const first = await submit({ auto: "off" }, { viewId: "V0SETTING1" });
    const again = await submit({ auto: "off" }, { viewId: "V0SETTING1" });
    expect(first.mock.calls).toEqual([[]]);
    expect(again.mock.calls).toEqual([[]]);
    expect(announcements()).toHaveLength(1);
    expect(ephemerals(kit)).toEqual([saved()]);
  });

  it("answers in time when Slack is slow to say who may, and shows the outcome in the modal", async () => {
    slowDown(kit.slack.conversations.members, 150);
    const ack = await submit({ auto: "off" }, { viewId: OPENED.id, decisionMs: 20 });
    expect(ack.mock.calls[0]?.[0]).toMatchObject({ response_action: "update" });
    expect((await settings()).autoTranscribe).toBe(false);
    const shown = views.update.mock.calls.at(-1)?.[0].view as ModalView;
    expect(textOf(shown)).toContain(t("en", "settings.saved"));
    expect(ephemerals(kit)).toEqual([]);
  });

  it("shows a slow refusal in the modal and saves nothing", async () => {
    slowDown(kit.slack.conversations.members, 150);
    await submit({ auto: "off" }, { user: GUEST, viewId: OPENED.id, decisionMs: 20 });
    const shown = views.update.mock.calls.at(-1)?.[0].view as ModalView;
    expect(textOf(shown)).toContain(permissionSentence("channel_member", "settings", "en"));
    expect((await settings()).autoTranscribe).toBe(true);
    expect(announcements()).toEqual([]);
  });
});
