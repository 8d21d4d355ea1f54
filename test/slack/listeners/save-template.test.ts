import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_TEMPLATE_BYTES } from "../../../src/notetaker/index.ts";
import { saveTemplate } from "../../../src/slack/listeners/save-template.ts";
import { FILE_HOST } from "../../helpers/fake-web-client.ts";
import {
  BOT_TOKEN,
  buildListenerDeps,
  CHANNEL,
  docxBytes,
  knowUpload,
  type ListenerKit,
  TEAM,
} from "../../helpers/listener-args.ts";

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

describe("saveTemplate", () => {
  it("downloads a DOCX from Slack with the bot token and keeps it once per channel and content", async () => {
    const bytes = docxBytes(5);
    const first = knowUpload(kit, { id: "F0TEMPL010", name: "minutes.docx", bytes });
    const again = knowUpload(kit, { id: "F0TEMPL011", name: "renamed.docx", bytes });
    const id = await saveTemplate(kit.deps, first, scope);
    expect(id).toBeDefined();
    expect(await saveTemplate(kit.deps, again, scope)).toBe(id);
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
    const id = await saveTemplate(kit.deps, file, scope, { pinned: true });
    expect(await kit.store.get("meta", `template:${id}`)).toEqual({ pinned: true });
  });

  it("gives nothing for a file Slack will not describe", async () => {
    expect(await saveTemplate(kit.deps, "F0MISSING2", scope)).toBeUndefined();
    expect(kit.fileRequests()).toEqual([]);
  });

  it("gives nothing, and logs why, for a file that is not a Word document", async () => {
    const file = knowUpload(kit, {
      id: "F0TEXT0001",
      name: "notes.docx",
      bytes: Buffer.from("hi"),
    });
    expect(await saveTemplate(kit.deps, file, scope)).toBeUndefined();
    expect(kit.logged("warn")).toEqual(["could not keep the template"]);
  });

  it("does not download a file Slack says is over 10 MB", async () => {
    const file = knowUpload(kit, {
      id: "F0HUGE0002",
      name: "huge.docx",
      bytes: docxBytes(),
      size: MAX_TEMPLATE_BYTES + 1,
    });
    expect(await saveTemplate(kit.deps, file, scope)).toBeUndefined();
    expect(kit.fileRequests()).toEqual([]);
  });

  it("never sends the token off Slack's hosts", async () => {
    const file = knowUpload(kit, { id: "F0ELSEWHR1", name: "t.docx", bytes: docxBytes() });
    const known = kit.workspace.files.get(file);
    kit.workspace.files.set(file, {
      ...known,
      url_private_download: "https://attacker.example/files-pri/t.docx",
    });
    expect(await saveTemplate(kit.deps, file, scope)).toBeUndefined();
    expect(kit.fileRequests()).toEqual([]);
  });

  it("gives nothing when the download fails", async () => {
    const file = knowUpload(kit, { id: "F0GONE0001", name: "t.docx", bytes: docxBytes() });
    kit.workspace.downloads.clear();
    expect(await saveTemplate(kit.deps, file, scope)).toBeUndefined();
    expect(kit.fileRequests()).toHaveLength(1);
  });
});
