import type { InputBlock, StaticSelect } from "@slack/types";
import { describe, expect, it } from "vitest";
import { SUPPORTED_AUDIO_FORMATS } from "../../../src/recordings/index.ts";
import { INPUTS, VIEWS } from "../../../src/slack/ids.ts";
import { LOCALES } from "../../../src/slack/messages/catalog.ts";
import {
  buildNewNotesModal,
  parseNewNotesMetadata,
} from "../../../src/slack/views/new-notes-modal.ts";
import {
  parseExtraNames,
  parseNewNotesSubmission,
} from "../../../src/slack/views/parse-new-notes-submission.ts";
import { expectModalLimits, expectNoLiveMentions } from "../../../support/helpers/slack-limits.ts";

const recent = [
  { fileId: "F0AAA", name: "weekly-sync.m4a" },
  { fileId: "F0BBB", name: `${"very long recording name ".repeat(10)}.mp3` },
];

function block(blocks: { type: string }[], id: string) {
  return blocks.filter((b): b is InputBlock => b.type === "input").find((b) => b.block_id === id);
}

describe("buildNewNotesModal", () => {
  it.each(LOCALES)("stays within Slack's limits (%s)", (locale) => {
    const view = buildNewNotesModal({ locale, channelId: "C0CHAN", recentRecordings: recent });
    expectModalLimits(view);
    expectNoLiveMentions(view);
  });

  it.each(LOCALES)(
    "from a message: its recording chosen, its thread kept, within Slack's limits (%s)",
    (locale) => {
      const view = buildNewNotesModal({
        locale,
        channelId: "C0CHAN",
        recentRecordings: recent,
        fromMessage: { chosenFileId: "F0BBB", threadTs: "1700000000.000100" },
      });
      expectModalLimits(view);
      const select = block(view.blocks, INPUTS.recentRecording.block);
      expect((select?.element as StaticSelect | undefined)?.initial_option?.value).toBe("F0BBB");
      expect(select?.label.text).not.toBe(
        block(
          buildNewNotesModal({ locale, channelId: "C0CHAN", recentRecordings: recent }).blocks,
          INPUTS.recentRecording.block,
        )?.label.text,
      );
      expect(block(view.blocks, INPUTS.destination.block)?.hint).toBeDefined();
      const metadata = parseNewNotesMetadata(view.private_metadata ?? "");
      expect(metadata).toMatchObject({ channelId: "C0CHAN", threadTs: "1700000000.000100" });
    },
  );

  it("keeps no thread that is not a message ts", () => {
    const view = buildNewNotesModal({
      locale: "en",
      channelId: "C0CHAN",
      recentRecordings: recent,
      fromMessage: { chosenFileId: "F0AAA", threadTs: "<!channel>" },
    });
    expect(JSON.parse(view.private_metadata ?? "")).not.toHaveProperty("threadTs");
    expect(parseNewNotesMetadata(JSON.stringify({ channelId: "C0CHAN", threadTs: "x" }))).toBe(
      undefined,
    );
  });

  it("asks for a recording, participants, names, context, language, template, destination and review", () => {
    const view = buildNewNotesModal({
      locale: "en",
      channelId: "C0CHAN",
      recentRecordings: recent,
    });
    expect(view.callback_id).toBe(VIEWS.newNotes);
    expect(JSON.parse(view.private_metadata ?? "")).toEqual({
      channelId: "C0CHAN",
      recent: ["F0AAA", "F0BBB"],
      locale: "en",
    });
    expect(view.title.text).toBe("New meeting notes");
    const ids = view.blocks.map((b) => b.block_id);
    expect(ids).toEqual([
      INPUTS.recording.block,
      INPUTS.recentRecording.block,
      INPUTS.participants.block,
      INPUTS.extraNames.block,
      INPUTS.context.block,
      INPUTS.language.block,
      INPUTS.template.block,
      INPUTS.destination.block,
      INPUTS.review.block,
    ]);
    expect(block(view.blocks, INPUTS.recording.block)?.element).toMatchObject({
      type: "file_input",
      action_id: INPUTS.recording.action,
      filetypes: [...SUPPORTED_AUDIO_FORMATS],
    });
    expect(block(view.blocks, INPUTS.template.block)?.element).toMatchObject({
      filetypes: ["docx"],
    });
    expect(block(view.blocks, INPUTS.participants.block)?.element.type).toBe("multi_users_select");
    expect(block(view.blocks, INPUTS.destination.block)?.element).toMatchObject({
      type: "conversations_select",
      initial_conversation: "C0CHAN",
      default_to_current_conversation: true,
    });
  });

  it("offers the recent recordings by name, or leaves the list out when there are none", () => {
    const view = buildNewNotesModal({
      locale: "en",
      channelId: "C0CHAN",
      recentRecordings: recent,
    });
    const select = block(view.blocks, INPUTS.recentRecording.block)?.element;
    expect(select).toMatchObject({
      type: "static_select",
      options: [{ value: "F0AAA" }, { value: "F0BBB" }],
    });
    const none = buildNewNotesModal({ locale: "en", channelId: "C0CHAN", recentRecordings: [] });
    expect(block(none.blocks, INPUTS.recentRecording.block)).toBeUndefined();
  });

  it("offers at most 100 recent recordings", () => {
    const many = Array.from({ length: 150 }, (_, i) => ({ fileId: `F${i}`, name: `r${i}.m4a` }));
    const view = buildNewNotesModal({ locale: "en", channelId: "C0CHAN", recentRecordings: many });
    expectModalLimits(view);
  });

  it("offers automatic detection first, then Vietnamese and English, named in the reader's language", () => {
    const en = buildNewNotesModal({ locale: "en", channelId: "C1", recentRecordings: [] });
    const select = block(en.blocks, INPUTS.language.block)?.element as StaticSelect;
    expect(select).toMatchObject({ type: "static_select", initial_option: { value: "auto" } });
    expect(select.options?.slice(0, 3)).toMatchObject([
      { text: { text: "Detect automatically" }, value: "auto" },
      { text: { text: "Vietnamese (vi)" }, value: "vi" },
      { text: { text: "English (en)" }, value: "en" },
    ]);
    const vi = buildNewNotesModal({ locale: "vi", channelId: "C1", recentRecordings: [] });
    expect(JSON.stringify(vi.blocks)).toContain("Tiếng Việt (vi)");
    expect(vi.title.text).toBe("Biên bản cuộc họp mới");
  });
});

/** `view.state.values` of the new-notes modal; only the given inputs are filled. */
function values(fill: {
  file?: string;
  recent?: string;
  users?: string[];
  names?: string;
  context?: string;
  language?: string;
  template?: string;
  channel?: string | null;
}) {
  return {
    [INPUTS.recording.block]: {
      [INPUTS.recording.action]: {
        type: "file_input",
        files: fill.file ? [{ id: fill.file }] : [],
      },
    },
    [INPUTS.recentRecording.block]: {
      [INPUTS.recentRecording.action]: {
        type: "static_select",
        selected_option: fill.recent ? { value: fill.recent } : null,
      },
    },
    [INPUTS.participants.block]: {
      [INPUTS.participants.action]: {
        type: "multi_users_select",
        selected_users: fill.users ?? [],
      },
    },
    [INPUTS.extraNames.block]: {
      [INPUTS.extraNames.action]: { type: "plain_text_input", value: fill.names ?? null },
    },
    [INPUTS.context.block]: {
      [INPUTS.context.action]: { type: "plain_text_input", value: fill.context ?? null },
    },
    [INPUTS.language.block]: {
      [INPUTS.language.action]: {
        type: "static_select",
        selected_option: { value: fill.language ?? "auto" },
      },
    },
    [INPUTS.template.block]: {
      [INPUTS.template.action]: {
        type: "file_input",
        files: fill.template ? [{ id: fill.template }] : [],
      },
    },
    [INPUTS.destination.block]: {
      [INPUTS.destination.action]: {
        type: "conversations_select",
        selected_conversation: fill.channel === undefined ? "C0CHAN" : fill.channel,
      },
    },
  };
}

describe("review before posting in the modal (issue 26)", () => {
  it("is ticked at first where the channel asks for it, and read when ticked", () => {
    const box = (review: boolean) =>
      buildNewNotesModal({ locale: "en", channelId: "C0CHAN", recentRecordings: [], review })
        .blocks.filter((b): b is InputBlock => b.type === "input")
        .find((b) => b.block_id === INPUTS.review.block)?.element;
    expect(box(false)).not.toHaveProperty("initial_options");
    expect(box(true)).toMatchObject({ initial_options: [{ value: INPUTS.review.action }] });
    const state = values({ file: "F0REC", channel: "C0CHAN" }) as Record<string, unknown>;
    state[INPUTS.review.block] = {
      [INPUTS.review.action]: {
        type: "checkboxes",
        selected_options: [{ value: INPUTS.review.action }],
      },
    };
    expect(parseNewNotesSubmission(state)).toMatchObject({ ok: true, value: { review: true } });
    const unticked = parseNewNotesSubmission(values({ file: "F0REC", channel: "C0CHAN" }));
    expect(unticked.ok && unticked.value.review).toBeUndefined();
  });
});

describe("parseNewNotesSubmission", () => {
  it("reads everything the modal asks", () => {
    const result = parseNewNotesSubmission(
      values({
        file: "F0REC",
        users: ["U0LAN", "U0MINH", "U0LAN"],
        names: "Anh Tuan\nChris, Dana ;  \n",
        context: "Agenda: roadmap",
        language: "vi",
        template: "F0TPL",
        channel: "C0OTHER",
      }),
    );
    expect(result).toEqual({
      ok: true,
      value: {
        recordingFileId: "F0REC",
        participantIds: ["U0LAN", "U0MINH"],
        extraNames: ["Anh Tuan", "Chris", "Dana"],
        contextText: "Agenda: roadmap",
        languageHint: "vi",
        templateFileId: "F0TPL",
        destinationChannelId: "C0OTHER",
      },
    });
  });

  it("takes a recent recording instead, with automatic language and nothing else", () => {
    expect(parseNewNotesSubmission(values({ recent: "F0AAA" }))).toEqual({
      ok: true,
      value: {
        recentFileId: "F0AAA",
        participantIds: [],
        extraNames: [],
        destinationChannelId: "C0CHAN",
      },
    });
  });

  it("needs exactly one recording source", () => {
    expect(parseNewNotesSubmission(values({}))).toEqual({
      ok: false,
      errors: { [INPUTS.recording.block]: "Upload a recording or choose a recent one." },
    });
    expect(parseNewNotesSubmission(values({ file: "F1", recent: "F2" }), "vi")).toEqual({
      ok: false,
      errors: {
        [INPUTS.recording.block]:
          "Chỉ chọn một: bản ghi âm tải lên hoặc bản gần đây, không phải cả hai.",
      },
    });
  });

  it("checks the typed names and the context", () => {
    const long = `Bao ${"x".repeat(80)}`;
    const result = parseNewNotesSubmission(
      values({ file: "F1", names: `Lan\n${long}`, context: "a\u0001" }),
    );
    expect(result).toEqual({
      ok: false,
      errors: {
        [INPUTS.extraNames.block]: `“Bao ${"x".repeat(16)}…” is longer than 80 characters.`,
        [INPUTS.context.block]: "Remove the special (control) characters from this text.",
      },
    });
    const tab = parseNewNotesSubmission(values({ file: "F1", names: "Lan\tAnh" }));
    expect(tab).toMatchObject({
      ok: false,
      errors: { [INPUTS.extraNames.block]: expect.any(String) },
    });
  });

  it("refuses a language that is not ISO 639-1, and a missing destination", () => {
    expect(parseNewNotesSubmission(values({ file: "F1", language: "xx" }))).toMatchObject({
      ok: false,
      errors: { [INPUTS.language.block]: "Choose a language from the list." },
    });
    expect(parseNewNotesSubmission(values({ file: "F1", channel: null }))).toMatchObject({
      ok: false,
      errors: { [INPUTS.destination.block]: expect.any(String) },
    });
  });

  it("reports a payload that does not have Slack's shape", () => {
    expect(parseNewNotesSubmission([1, 2])).toMatchObject({
      ok: false,
      errors: { [INPUTS.recording.block]: expect.stringContaining("could not be read") },
    });
  });
});

describe("parseExtraNames", () => {
  it("splits on lines, commas and semicolons, trims and drops duplicates", () => {
    expect(parseExtraNames(" Lan , Minh\r\n\nLan;An ")).toEqual(["Lan", "Minh", "An"]);
    expect(parseExtraNames(undefined)).toEqual([]);
  });

  it("removes invisible and bidi characters, dropping names that were nothing else", () => {
    expect(parseExtraNames("\u202ELan\u202C, Mi\u200Bnh\n\u200B\u2066\u2069, Lan\uFEFF")).toEqual([
      "Lan",
      "Minh",
    ]);
  });
});

describe("parseNewNotesMetadata", () => {
  it("reads the channel back, and nothing from a malformed value", () => {
    expect(parseNewNotesMetadata('{"channelId":"C0CHAN"}')).toEqual({ channelId: "C0CHAN" });
    expect(parseNewNotesMetadata("C0CHAN")).toBeUndefined();
    expect(parseNewNotesMetadata('{"channelId":"C0CHAN","locale":"vi"}')).toEqual({
      channelId: "C0CHAN",
      locale: "vi",
    });
    // Only the languages the app speaks: anything else is not our metadata.
    expect(parseNewNotesMetadata('{"channelId":"C0CHAN","locale":"<!here>"}')).toBeUndefined();
    expect(parseNewNotesMetadata('{"channelId":""}')).toBeUndefined();
  });
});
