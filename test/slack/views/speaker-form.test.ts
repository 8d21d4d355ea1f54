import { describe, expect, it } from "vitest";
import { INPUTS, SPEAKER_ACTIONS, speakerBlock } from "../../../src/slack/ids.ts";
import { parseSpeakerSubmission } from "../../../src/slack/views/speaker-form.ts";

/** `view.state.values` as Slack sends it for the speaker modal. */
function values(
  speakers: Record<string, { user?: string | null; name?: string | null; gender?: string | null }>,
  extra: Record<string, unknown> = {},
) {
  const state: Record<string, Record<string, unknown>> = {};
  for (const [id, v] of Object.entries(speakers)) {
    state[speakerBlock.user(id)] = {
      [SPEAKER_ACTIONS.user]: { type: "users_select", selected_user: v.user ?? null },
    };
    state[speakerBlock.name(id)] = {
      [SPEAKER_ACTIONS.name]: { type: "plain_text_input", value: v.name ?? null },
    };
    state[speakerBlock.gender(id)] = {
      [SPEAKER_ACTIONS.gender]: {
        type: "static_select",
        selected_option: v.gender
          ? { text: { type: "plain_text", text: v.gender }, value: v.gender }
          : null,
      },
    };
  }
  return { ...state, ...extra };
}

describe("parseSpeakerSubmission", () => {
  it("reads a member, a typed name and a gender for each speaker", () => {
    const result = parseSpeakerSubmission(
      values({
        speaker_1: { user: "U0LAN", gender: "female" },
        speaker_2: { name: "  Minh Tran  " },
        speaker_3: { user: "U0AN", name: "An (guest)", gender: "male" },
      }),
      ["speaker_1", "speaker_2", "speaker_3"],
    );
    expect(result).toEqual({
      ok: true,
      entries: [
        { speakerId: "speaker_1", userId: "U0LAN", gender: "female" },
        { speakerId: "speaker_2", name: "Minh Tran" },
        { speakerId: "speaker_3", userId: "U0AN", name: "An (guest)", gender: "male" },
      ],
    });
  });

  it("removes invisible and bidi characters from typed names; nothing visible is no name", () => {
    const result = parseSpeakerSubmission(
      values({
        speaker_1: { name: "\u202Enohtyp\u202C Lan\u200B" },
        speaker_2: { name: "\u200B\u2066\u2069\uFEFF" },
      }),
      ["speaker_1", "speaker_2"],
    );
    // A name of invisible characters only is no name: that speaker keeps a neutral label.
    expect(result).toEqual({ ok: true, entries: [{ speakerId: "speaker_1", name: "nohtyp Lan" }] });
    const named = parseSpeakerSubmission(values({ speaker_1: { name: "Mi\u200Dnh\u2067" } }), [
      "speaker_1",
    ]);
    expect(named).toEqual({ ok: true, entries: [{ speakerId: "speaker_1", name: "Minh" }] });
  });

  it("lets any speaker be left unnamed, and two speakers be the same person", () => {
    const result = parseSpeakerSubmission(
      values({
        speaker_1: { name: "Lan" },
        speaker_2: { name: "   " },
        speaker_4: { name: "Lan" },
      }),
      ["speaker_1", "speaker_2", "speaker_3", "speaker_4"],
    );
    expect(result).toEqual({
      ok: true,
      entries: [
        { speakerId: "speaker_1", name: "Lan" },
        { speakerId: "speaker_4", name: "Lan" },
      ],
    });
    expect(parseSpeakerSubmission(values({}), ["speaker_1"])).toEqual({ ok: true, entries: [] });
  });

  it("refuses names over 80 characters and control characters, in the person's language", () => {
    const result = parseSpeakerSubmission(
      values({ speaker_1: { name: "x".repeat(81) }, speaker_2: { name: "Lan\u0007" } }),
      ["speaker_1", "speaker_2"],
      "vi",
    );
    expect(result).toEqual({
      ok: false,
      errors: {
        [speakerBlock.name("speaker_1")]: "Tên không được dài quá 80 ký tự.",
        [speakerBlock.name("speaker_2")]:
          "Hãy xóa các ký tự đặc biệt (ký tự điều khiển) khỏi nội dung này.",
      },
    });
  });

  it("counts characters, not UTF-16 units: 80 Vietnamese letters or emoji are fine", () => {
    const result = parseSpeakerSubmission(values({ speaker_1: { name: "😀".repeat(80) } }), [
      "speaker_1",
    ]);
    expect(result.ok).toBe(true);
  });

  it("ignores a gender that is not offered", () => {
    const result = parseSpeakerSubmission(values({ speaker_1: { name: "Lan", gender: "other" } }), [
      "speaker_1",
    ]);
    expect(result).toEqual({ ok: true, entries: [{ speakerId: "speaker_1", name: "Lan" }] });
  });

  it("reads the regenerate modal's context and template", () => {
    const result = parseSpeakerSubmission(
      values(
        { speaker_1: { name: "Lan" } },
        {
          [INPUTS.context.block]: {
            [INPUTS.context.action]: { type: "plain_text_input", value: "Agenda:\n- budget\n" },
          },
          [INPUTS.template.block]: {
            [INPUTS.template.action]: {
              type: "file_input",
              files: [{ id: "F0TPL", name: "t.docx" }],
            },
          },
        },
      ),
      ["speaker_1"],
    );
    expect(result).toMatchObject({
      ok: true,
      contextText: "Agenda:\n- budget",
      templateFileId: "F0TPL",
    });
  });

  it("leaves the context out when the box is empty (the current one is kept)", () => {
    const result = parseSpeakerSubmission(
      values(
        { speaker_1: { name: "Lan" } },
        {
          [INPUTS.context.block]: {
            [INPUTS.context.action]: { type: "plain_text_input", value: null },
          },
          [INPUTS.template.block]: { [INPUTS.template.action]: { type: "file_input", files: [] } },
        },
      ),
      ["speaker_1"],
    );
    expect(result).toEqual({ ok: true, entries: [{ speakerId: "speaker_1", name: "Lan" }] });
  });

  it("refuses control characters in the context but keeps tabs and newlines", () => {
    const result = parseSpeakerSubmission(
      values(
        { speaker_1: { name: "Lan" } },
        {
          [INPUTS.context.block]: {
            [INPUTS.context.action]: { type: "plain_text_input", value: "a\tb\nc\u0000" },
          },
        },
      ),
      ["speaker_1"],
    );
    expect(result).toEqual({
      ok: false,
      errors: { [INPUTS.context.block]: "Remove the special (control) characters from this text." },
    });
  });

  it("reports a payload that does not have Slack's shape instead of trusting it", () => {
    for (const bad of [null, "x", { b: "not an object" }, { b: { a: { value: 3 } } }]) {
      const result = parseSpeakerSubmission(bad, ["speaker_1"]);
      expect(result).toEqual({
        ok: false,
        errors: { [speakerBlock.name("speaker_1")]: expect.stringContaining("could not be read") },
      });
    }
  });
});
