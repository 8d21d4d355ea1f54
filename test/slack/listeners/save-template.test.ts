import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_TEMPLATE_BYTES } from "../../../src/notetaker/index.ts";
import {
  chooseTemplate,
  saveTemplate,
  templateRefusal,
} from "../../../src/slack/listeners/save-template.ts";
import { t } from "../../../src/slack/messages/catalog.ts";
import { FILE_HOST } from "../../../support/helpers/fake-web-client.ts";
import {
  ALICE,
  BOB,
  BOT,
  BOT_TOKEN,
  buildListenerDeps,
  CHANNEL,
  docxBytes,
  knowUpload,
  type ListenerKit,
  OTHER_CHANNEL,
  TEAM,
} from "../../../support/helpers/listener-args.ts";

let kit: ListenerKit;
beforeEach(async () => {
  kit = await buildListenerDeps();
});
afterEach(() => {
  // Whatever happened, the bot token stayed out of the log.
  expect(JSON.stringify(kit.logs)).not.toContain(BOT_TOKEN);
  return kit.close();
});

const scope = { teamId: TEAM, channelId: CHANNEL };

/** Alice chose the file in a modal: judged, then kept. */
async function keep(fileId: string, options: { pinned?: boolean } = {}) {
  return saveTemplate(kit.deps, await chooseTemplate(kit.deps, fileId, ALICE), scope, options);
}

describe("saveTemplate", () => {
  it("downloads a DOCX from Slack with the bot token and keeps it once per channel and content", async () => {
    const bytes = docxBytes(5);
    const first = knowUpload(kit, { id: "F0TEMPL010", name: "minutes.docx", bytes });
    const again = knowUpload(kit, { id: "F0TEMPL011", name: "renamed.docx", bytes });
    const id = await keep(first);
    expect(id).toBeDefined();
    expect(await keep(again)).toBe(id);
    expect(await kit.store.get("templates", id ?? "")).toEqual({
      filename: "minutes.docx",
      base64: Buffer.from(bytes).toString("base64"),
    });
    expect(kit.fileRequests()).toEqual([
      {
        url: `${FILE_HOST}/files-pri/${TEAM}-${first}/download/minutes.docx`,
        authorization: `Bearer ${BOT_TOKEN}`,
      },
      {
        url: `${FILE_HOST}/files-pri/${TEAM}-${again}/download/renamed.docx`,
        authorization: `Bearer ${BOT_TOKEN}`,
      },
    ]);
  });

  it("keeps a channel's template without expiry when pinned", async () => {
    const file = knowUpload(kit, { id: "F0TEMPL012", name: "minutes.docx", bytes: docxBytes(6) });
    const id = await keep(file, { pinned: true });
    expect(await kit.store.get("meta", `template:${id}`)).toEqual({ pinned: true });
  });

  it("gives nothing for a file Slack will not describe", async () => {
    expect(await keep("F0MISSING2")).toBeUndefined();
    expect(kit.fileRequests()).toEqual([]);
  });

  it("gives nothing, and logs why, for a file that is not a Word document", async () => {
    const file = knowUpload(kit, {
      id: "F0TEXT0001",
      name: "notes.docx",
      bytes: Buffer.from("hi"),
    });
    expect(await keep(file)).toBeUndefined();
    expect(kit.logged("warn")).toEqual(["could not keep the template"]);
  });

  it("does not download a file Slack says is over 10 MB", async () => {
    const file = knowUpload(kit, {
      id: "F0HUGE0002",
      name: "huge.docx",
      bytes: docxBytes(),
      size: MAX_TEMPLATE_BYTES + 1,
    });
    expect(await keep(file)).toBeUndefined();
    expect(kit.fileRequests()).toEqual([]);
  });

  it("never sends the token off Slack's hosts", async () => {
    const file = knowUpload(kit, { id: "F0ELSEWHR1", name: "t.docx", bytes: docxBytes() });
    const known = kit.workspace.files.get(file);
    kit.workspace.files.set(file, {
      ...known,
      url_private_download: "https://attacker.example/files-pri/t.docx",
    });
    expect(await keep(file)).toBeUndefined();
    expect(kit.fileRequests()).toEqual([]);
  });

  it("gives nothing when the download fails", async () => {
    const file = knowUpload(kit, { id: "F0GONE0001", name: "t.docx", bytes: docxBytes() });
    kit.workspace.downloads.clear();
    expect(await keep(file)).toBeUndefined();
    expect(kit.fileRequests()).toHaveLength(1);
  });
});

describe("chooseTemplate", () => {
  /** A DOCX Bob uploaded, shared only in {@link OTHER_CHANNEL} (Bob and the bot), by its id. */
  function bobsTemplate(): string {
    const id = knowUpload(kit, { id: "F0BOBSDOC1", name: "bob.docx", bytes: docxBytes(8) });
    kit.workspace.files.set(id, {
      ...kit.workspace.files.get(id),
      user: BOB,
      groups: [OTHER_CHANNEL],
      shares: { private: { [OTHER_CHANNEL]: [{ ts: "1700000000.000100" }] } },
    });
    return id;
  }

  it("allows the submitter's own upload without asking who is where", async () => {
    const id = knowUpload(kit, { id: "F0ALICE001", name: "mine.docx", bytes: docxBytes(2) });
    expect(await chooseTemplate(kit.deps, id, ALICE)).toMatchObject({
      kind: "allowed",
      file: { id, user: ALICE },
    });
    expect(kit.slack.conversations.members).not.toHaveBeenCalled();
  });

  it("refuses someone else's file shared only where the submitter is not, and reads nothing", async () => {
    const id = bobsTemplate();
    expect(await chooseTemplate(kit.deps, id, ALICE)).toEqual({ kind: "refused" });
    expect(kit.slack.conversations.members).toHaveBeenCalledWith(
      expect.objectContaining({ channel: OTHER_CHANNEL }),
    );
    expect(await saveTemplate(kit.deps, { kind: "refused" }, scope)).toBeUndefined();
    expect(kit.fileRequests()).toEqual([]);
  });

  it("allows someone else's file shared in a conversation the submitter is in now", async () => {
    const id = bobsTemplate();
    kit.workspace.members.set(OTHER_CHANNEL, [BOB, ALICE, BOT]);
    expect(await chooseTemplate(kit.deps, id, ALICE)).toMatchObject({ kind: "allowed" });
    // Removed a moment later: the next submission is refused, nothing remembered.
    kit.workspace.members.set(OTHER_CHANNEL, [BOB, BOT]);
    expect(await chooseTemplate(kit.deps, id, ALICE)).toEqual({ kind: "refused" });
  });

  it("trusts only files.info, not what the payload's file object claims", async () => {
    const id = bobsTemplate();
    // The modal's state names only an id; the uploader is Slack's answer, Bob.
    expect(await chooseTemplate(kit.deps, id, ALICE)).toEqual({ kind: "refused" });
    expect(kit.slack.files.info).toHaveBeenCalledWith({ file: id });
  });

  it("says none, or unreadable, without a refusal", async () => {
    expect(await chooseTemplate(kit.deps, undefined, ALICE)).toEqual({ kind: "none" });
    expect(await chooseTemplate(kit.deps, "F0MISSING3", ALICE)).toEqual({ kind: "unreadable" });
  });

  it("answers a refusal with one sentence on the template input", () => {
    expect(templateRefusal("vi")).toEqual({ template: t("vi", "permission.template") });
    expect(templateRefusal("en").template).toMatch(/^Choose a Word template you uploaded/);
  });
});
