import type { ModalView } from "@slack/types";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { INPUTS, SHORTCUTS, VIEWS } from "../../../../src/slack/ids.ts";
import {
  makeNotesShortcut,
  readShortcut,
} from "../../../../src/slack/listeners/shortcuts/make-notes.ts";
import { t } from "../../../../src/slack/messages/catalog.ts";
import {
  ALICE,
  asRequest,
  buildListenerDeps,
  buildShortcutArgs,
  CHANNEL,
  fakeAck,
  fixtureIds,
  type ListenerKit,
} from "../../../../support/helpers/listener-args.ts";
import {
  shownViews,
  slowDown,
  textOf,
  withModalMethods,
} from "../../../../support/helpers/modal-kit.ts";
import { loadObject } from "../../../fixtures/slack-payloads/index.ts";

const RESPONSE_URL = "https://hooks.slack.com/app/T0FAKE/1/listener-test";
const MESSAGE_TS = "1700000000.000100";
const RECORDING = "F0SHORTCT1";

/** Slack's published message shortcut, as this app's, on a message carrying `files`. */
function shortcut(message: Record<string, unknown> = {}): Record<string, unknown> {
  const payload = loadObject(
    "interaction-message_action",
    fixtureIds({ callbackId: SHORTCUTS.makeNotes, responseUrl: RESPONSE_URL, ts: MESSAGE_TS }),
  );
  payload.message = { ...(payload.message as Record<string, unknown>), ...message };
  return payload;
}

/** Alice's mp3 of a published upload, as the message and `files.info` show it. */
function recording(id = RECORDING): Record<string, unknown> {
  const event = loadObject("event-message-file_share-mp3", fixtureIds({ file: id })).event;
  const [file] = (event as { files: Record<string, unknown>[] }).files;
  return file ?? {};
}

describe("readShortcut", () => {
  it("reads Slack's published message_action: who, where, the message's thread and files", () => {
    expect(readShortcut(shortcut())).toEqual({
      userId: ALICE,
      channelId: CHANNEL,
      threadTs: MESSAGE_TS,
      triggerId: expect.any(String),
      responseUrl: RESPONSE_URL,
      files: [],
    });
    const file = recording();
    const reply = readShortcut(shortcut({ thread_ts: "1699999999.000001", files: [file] }));
    expect(reply).toMatchObject({ threadTs: "1699999999.000001", files: [file] });
  });

  it.each([
    ["another shortcut's", { callback_id: "other_shortcut" }],
    ["a global shortcut's (no message)", { type: "shortcut", message: undefined }],
    ["one without a trigger", { trigger_id: undefined }],
    ["one without a response_url", { response_url: undefined }],
    ["one whose message ts is not a ts", { message: { type: "message", ts: "<!here>" } }],
  ])("refuses %s payload", (_what, changes) => {
    expect(readShortcut({ ...shortcut(), ...changes })).toBeUndefined();
  });
});

describe("makeNotesShortcut", () => {
  let kit: ListenerKit;
  let views: ReturnType<typeof withModalMethods>;
  beforeEach(async () => {
    kit = await buildListenerDeps();
    views = withModalMethods(kit);
    kit.workspace.files.set(RECORDING, recording());
  });
  afterEach(() => kit.close());

  async function use(payload: Record<string, unknown>, lookUpMs?: number) {
    const listener = makeNotesShortcut(kit.deps, lookUpMs === undefined ? {} : { lookUpMs });
    const ack = fakeAck();
    await asRequest(() => listener(buildShortcutArgs(kit, payload, { ack })));
    return ack;
  }

  it("acks, then opens the modal filled at once when Slack answers in time", async () => {
    const ack = await use(shortcut({ files: [recording()] }));
    expect(ack).toHaveBeenCalledOnce();
    expect(ack.mock.invocationCallOrder[0]).toBeLessThan(
      kit.slack.files.info.mock.invocationCallOrder[0] ?? 0,
    );
    expect(views.open).toHaveBeenCalledOnce();
    expect(views.update).not.toHaveBeenCalled();
    const [view] = shownViews(kit);
    expect(view?.callback_id).toBe(VIEWS.newNotes);
    expect(JSON.parse(view?.private_metadata ?? "")).toEqual({
      channelId: CHANNEL,
      recent: [RECORDING],
      locale: "en",
      threadTs: MESSAGE_TS,
    });
    expect(textOf(view)).toContain(t("en", "new_notes.message_recording_label"));
    expect(kit.respond).not.toHaveBeenCalled();
  });

  it("opens a loading modal when the look-ups are slow, and fills it once they answer", async () => {
    slowDown(kit.slack.files.info, 60);
    await use(shortcut({ files: [recording()] }), 10);
    const [loading, filled] = shownViews(kit);
    expect(loading?.submit).toBeUndefined();
    expect(textOf(loading)).toContain(t("en", "notice.loading"));
    const recent = (filled as ModalView).blocks.find(
      (b) => b.block_id === INPUTS.recentRecording.block,
    );
    expect(JSON.stringify(recent)).toContain(`"initial_option"`);
    expect(kit.respond).not.toHaveBeenCalled();
  });

  it("says in the slow modal itself, not ephemerally, that the recording cannot be read", async () => {
    kit.workspace.files.delete(RECORDING);
    slowDown(kit.slack.files.info, 60);
    await use(shortcut({ files: [recording()] }), 10);
    const [, said] = shownViews(kit);
    expect(textOf(said)).toContain("Download it and upload it here again");
    expect(said?.submit).toBeUndefined();
    expect(kit.respond).not.toHaveBeenCalled();
  });

  it("says it could not open the form when Slack refuses the trigger", async () => {
    views.open.mockRejectedValueOnce(new Error("expired_trigger_id"));
    await use(shortcut({ files: [recording()] }));
    expect(kit.respond.mock.calls).toEqual([
      [RESPONSE_URL, expect.objectContaining({ text: t("en", "notice.open_failed") })],
    ]);
  });

  it("drops a payload it cannot read, after acking it", async () => {
    const ack = await use({ ...shortcut(), trigger_id: 42 });
    expect(ack).toHaveBeenCalledOnce();
    expect(views.open).not.toHaveBeenCalled();
    expect(kit.respond).not.toHaveBeenCalled();
    expect(kit.logged("warn")).toContain("a message shortcut payload that cannot be read");
  });
});
