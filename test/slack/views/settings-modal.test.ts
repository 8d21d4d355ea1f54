import type { InputBlock } from "@slack/types";
import { describe, expect, it } from "vitest";
import { INPUTS, VIEWS } from "../../../src/slack/ids.ts";
import { LOCALES } from "../../../src/slack/messages/catalog.ts";
import {
  buildSettingsModal,
  CLEAR_TEMPLATE,
  parseSettingsSubmission,
} from "../../../src/slack/views/settings-modal.ts";
import { expectModalLimits, expectNoLiveMentions } from "../../../support/helpers/slack-limits.ts";

function block(blocks: { type: string }[], id: string) {
  return blocks.filter((b): b is InputBlock => b.type === "input").find((b) => b.block_id === id);
}

const full = {
  autoTranscribe: false,
  languageHint: "ja",
  contextText: "Glossary: OKR, P&L",
  templateId: "tpl-1",
};

describe("buildSettingsModal", () => {
  it.each(LOCALES)("stays within Slack's limits (%s)", (locale) => {
    for (const settings of [{ autoTranscribe: true }, full]) {
      const view = buildSettingsModal(settings, { locale, channelId: "C0CHAN" });
      expectModalLimits(view);
      expectNoLiveMentions(view, ["<#C0CHAN>"]);
    }
  });

  it("shows the channel's current settings", () => {
    const view = buildSettingsModal(full, { locale: "en", channelId: "C0CHAN" });
    expect(view.callback_id).toBe(VIEWS.channelSettings);
    expect(JSON.parse(view.private_metadata ?? "")).toEqual({ channelId: "C0CHAN", locale: "en" });
    expect(view.title.text).toBe("Channel settings");
    expect(JSON.stringify(view.blocks[0])).toContain("Defaults for recordings in <#C0CHAN>.");
    expect(block(view.blocks, INPUTS.autoTranscribe.block)?.element).toMatchObject({
      type: "radio_buttons",
      initial_option: { value: "off" },
    });
    expect(block(view.blocks, INPUTS.language.block)?.element).toMatchObject({
      initial_option: { value: "ja", text: { text: "Japanese (ja)" } },
    });
    expect(block(view.blocks, INPUTS.context.block)?.element).toMatchObject({
      initial_value: "Glossary: OKR, P&L",
    });
    expect(block(view.blocks, INPUTS.template.block)?.hint?.text).toMatch(/A template is set/);
    expect(block(view.blocks, CLEAR_TEMPLATE.block)?.element.type).toBe("checkboxes");
  });

  it("starts from automatic language, on, and no template to clear", () => {
    const view = buildSettingsModal(
      { autoTranscribe: true },
      { locale: "vi", channelId: "C0CHAN" },
    );
    expect(view.title.text).toBe("Cài đặt kênh");
    expect(block(view.blocks, INPUTS.autoTranscribe.block)?.element).toMatchObject({
      initial_option: { value: "on" },
    });
    expect(block(view.blocks, INPUTS.language.block)?.element).toMatchObject({
      initial_option: { value: "auto", text: { text: "Tự động nhận diện" } },
    });
    expect(block(view.blocks, CLEAR_TEMPLATE.block)).toBeUndefined();
  });

  it("keeps an unlisted language selected", () => {
    const view = buildSettingsModal(
      { autoTranscribe: true, languageHint: "cy" },
      { locale: "en", channelId: "C1" },
    );
    expect(block(view.blocks, INPUTS.language.block)?.element).toMatchObject({
      initial_option: { value: "cy", text: { text: "Welsh (cy)" } },
    });
  });
});

function values(fill: {
  auto?: string;
  language?: string;
  context?: string | null;
  template?: string;
  clear?: boolean;
}) {
  return {
    [INPUTS.autoTranscribe.block]: {
      [INPUTS.autoTranscribe.action]: {
        type: "radio_buttons",
        selected_option: fill.auto ? { value: fill.auto } : null,
      },
    },
    [INPUTS.language.block]: {
      [INPUTS.language.action]: {
        type: "static_select",
        selected_option: { value: fill.language ?? "auto" },
      },
    },
    [INPUTS.context.block]: {
      [INPUTS.context.action]: { type: "plain_text_input", value: fill.context ?? null },
    },
    [INPUTS.template.block]: {
      [INPUTS.template.action]: {
        type: "file_input",
        files: fill.template ? [{ id: fill.template }] : [],
      },
    },
    [CLEAR_TEMPLATE.block]: {
      [CLEAR_TEMPLATE.action]: {
        type: "checkboxes",
        selected_options: fill.clear ? [{ value: CLEAR_TEMPLATE.action }] : [],
      },
    },
  };
}

describe("parseSettingsSubmission", () => {
  it("reads the settings", () => {
    expect(
      parseSettingsSubmission(
        values({ auto: "off", language: "vi", context: " Glossary ", template: "F0T" }),
      ),
    ).toEqual({
      ok: true,
      value: {
        autoTranscribe: false,
        languageHint: "vi",
        contextText: "Glossary",
        templateFileId: "F0T",
        clearTemplate: false,
      },
    });
    expect(parseSettingsSubmission(values({ auto: "on", clear: true }))).toEqual({
      ok: true,
      value: { autoTranscribe: true, clearTemplate: true },
    });
  });

  it("refuses what the form cannot have sent", () => {
    expect(parseSettingsSubmission(values({}))).toMatchObject({
      ok: false,
      errors: { [INPUTS.autoTranscribe.block]: expect.any(String) },
    });
    expect(parseSettingsSubmission(values({ auto: "on", language: "english" }))).toMatchObject({
      ok: false,
      errors: { [INPUTS.language.block]: "Choose a language from the list." },
    });
    expect(
      parseSettingsSubmission(values({ auto: "on", context: "x\u001b[31m" }), "vi"),
    ).toMatchObject({
      ok: false,
      errors: { [INPUTS.context.block]: expect.stringContaining("ký tự điều khiển") },
    });
    expect(parseSettingsSubmission("nope")).toMatchObject({ ok: false });
  });
});

describe("the delivery options (issue 16)", () => {
  const deliveryOf = (locale: "en" | "vi", settings = {}) =>
    block(
      buildSettingsModal({ autoTranscribe: true, ...settings }, { locale, channelId: "C1" }).blocks,
      INPUTS.delivery.block,
    );

  it.each([
    [
      "en",
      [
        "Put the notes in a canvas the channel can read",
        "Upload the transcript with the speakers' names (.txt and .vtt)",
        "Mention the people named in the notes",
      ],
    ],
    [
      "vi",
      [
        "Đưa biên bản vào một canvas mà kênh có thể đọc",
        "Tải lên bản ghi lời nói kèm tên người nói (.txt và .vtt)",
        "Nhắc đến những người được nêu tên trong biên bản",
      ],
    ],
  ] as const)(
    "shows the three options in %s, canvas and transcript ticked by default",
    (locale, texts) => {
      const delivery = deliveryOf(locale);
      expect(delivery?.optional).toBe(true);
      const element = delivery?.element as { options: { text: { text: string } }[] };
      expect(element.options.map((o) => o.text.text)).toEqual(texts);
      expect(delivery?.element).toMatchObject({
        type: "checkboxes",
        initial_options: [{ value: "canvas" }, { value: "transcript" }],
      });
    },
  );

  it("ticks what the channel has, and none when all are off", () => {
    expect(deliveryOf("en", { canvas: false, mentions: true })?.element).toMatchObject({
      initial_options: [{ value: "transcript" }, { value: "mentions" }],
    });
    const none = deliveryOf("en", { canvas: false, transcript: false, mentions: false });
    expect(none?.element).not.toHaveProperty("initial_options");
  });

  it("reads the ticked options, and keeps them when the modal had no such block", () => {
    const state = values({ auto: "on" }) as Record<string, unknown>;
    state[INPUTS.delivery.block] = {
      [INPUTS.delivery.action]: { type: "checkboxes", selected_options: [{ value: "mentions" }] },
    };
    expect(parseSettingsSubmission(state)).toMatchObject({
      ok: true,
      value: { delivery: { canvas: false, transcript: false, mentions: true } },
    });
    const older = parseSettingsSubmission(values({ auto: "on" }));
    expect(older.ok && older.value.delivery).toBeUndefined();
  });
});

describe("review before posting (issue 26)", () => {
  const reviewOf = (settings = {}) =>
    block(
      buildSettingsModal({ autoTranscribe: true, ...settings }, { locale: "en", channelId: "C1" })
        .blocks,
      INPUTS.review.block,
    );

  it("is one optional box, ticked only when the channel asks for review", () => {
    expect(reviewOf()?.optional).toBe(true);
    expect(reviewOf()?.element).not.toHaveProperty("initial_options");
    expect(reviewOf({ review: true })?.element).toMatchObject({
      type: "checkboxes",
      initial_options: [{ value: INPUTS.review.action }],
    });
  });

  it("reads the box, and keeps the channel's choice when the modal had no such block", () => {
    const state = values({ auto: "on" }) as Record<string, unknown>;
    state[INPUTS.review.block] = {
      [INPUTS.review.action]: {
        type: "checkboxes",
        selected_options: [{ value: INPUTS.review.action }],
      },
    };
    expect(parseSettingsSubmission(state)).toMatchObject({ ok: true, value: { review: true } });
    state[INPUTS.review.block] = {
      [INPUTS.review.action]: { type: "checkboxes", selected_options: [] },
    };
    expect(parseSettingsSubmission(state)).toMatchObject({ ok: true, value: { review: false } });
    const older = parseSettingsSubmission(values({ auto: "on" }));
    expect(older.ok && older.value.review).toBeUndefined();
  });
});
