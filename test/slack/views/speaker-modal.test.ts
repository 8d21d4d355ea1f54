import type { InputBlock, PlainTextInput, StaticSelect } from "@slack/types";
import { describe, expect, it } from "vitest";
import { INPUTS, SPEAKER_ACTIONS, speakerBlock, VIEWS } from "../../../src/slack/ids.ts";
import { LOCALES } from "../../../src/slack/messages/index.ts";
import {
  buildSpeakerModal,
  MAX_MODAL_SPEAKERS,
  speakersInModal,
} from "../../../src/slack/views/index.ts";
import { done, manySpeakers, naming, quotes, writing } from "./fixtures.ts";
import { expectModalLimits, expectNoLiveMentions } from "./slack-limits.ts";

function inputs(blocks: { type: string }[]): InputBlock[] {
  return blocks.filter((b): b is InputBlock => b.type === "input");
}

function block(view: { blocks: { type: string }[] }, id: string): InputBlock | undefined {
  return inputs(view.blocks).find((b) => b.block_id === id);
}

describe("buildSpeakerModal", () => {
  it.each(LOCALES)("stays within Slack's limits in both modes (%s)", (locale) => {
    for (const mode of ["names", "regenerate"] as const) {
      const view = buildSpeakerModal(mode === "names" ? naming() : done(), {
        locale,
        mode,
        quotes,
      });
      expectModalLimits(view);
      expectNoLiveMentions(view);
    }
  });

  it("names the speakers of a job in naming", () => {
    const view = buildSpeakerModal(naming(), { locale: "en", mode: "names" });
    expect(view.callback_id).toBe(VIEWS.speakerNames);
    expect(view.private_metadata).toBe("job-1");
    expect(view.title.text).toBe("Name the speakers");
    expect(view.submit?.text).toBe("Write notes");
    for (const id of ["speaker_1", "speaker_2", "speaker_3"]) {
      expect(block(view, speakerBlock.user(id))?.element.type).toBe("users_select");
      expect(block(view, speakerBlock.name(id))?.element.type).toBe("plain_text_input");
      expect(block(view, speakerBlock.gender(id))?.element.type).toBe("static_select");
    }
    expect(block(view, INPUTS.context.block)).toBeUndefined();
  });

  it("puts the speaker id in every input's block id, with the shared action ids", () => {
    const view = buildSpeakerModal(naming(), { locale: "en", mode: "names" });
    for (const input of inputs(view.blocks)) {
      const parsed = speakerBlock.parse(input.block_id ?? "");
      expect(parsed).toBeDefined();
      expect(input.block_id).toContain(parsed?.speakerId);
      expect(input.element.action_id).toBe(SPEAKER_ACTIONS[parsed?.field ?? "name"]);
      expect(input.optional).toBe(true);
    }
  });

  it("shows each speaker's share and two quotes with timestamps, escaped", () => {
    const json = JSON.stringify(
      buildSpeakerModal(naming(), { locale: "en", mode: "names", quotes }).blocks,
    );
    expect(json).toContain("*Speaker 1* · 45% of talk time");
    expect(json).toContain(
      "`00:12` Let's start with the roadmap &amp; the &lt;!channel&gt; launch.",
    );
    expect(json).toContain("`1:02:05` I have the numbers ready, cc &lt;@U999&gt;.");
    expect(json).toContain("No quotes to show.");
    const vi = JSON.stringify(buildSpeakerModal(naming(), { locale: "vi", mode: "names" }).blocks);
    expect(vi).toContain("*Người nói 1* · 45% thời lượng nói");
  });

  it("limits typed names to 80 characters", () => {
    const view = buildSpeakerModal(naming(), { locale: "en", mode: "names" });
    const name = block(view, speakerBlock.name("speaker_1"))?.element as PlainTextInput;
    expect(name.max_length).toBe(80);
  });

  it("pre-fills names given at transcription when the service used them as ids", () => {
    const job = naming({
      options: { speakers: [{ name: "Lan", gender: "female" }, { name: "Minh" }] },
      speakers: [
        { speakerId: "Lan", seconds: 10, share: 0.5 },
        { speakerId: "speaker_2", seconds: 10, share: 0.5 },
      ],
    });
    const view = buildSpeakerModal(job, { locale: "en", mode: "names" });
    const lan = block(view, speakerBlock.name("Lan"))?.element as PlainTextInput;
    expect(lan.initial_value).toBe("Lan");
    const gender = block(view, speakerBlock.gender("Lan"))?.element as StaticSelect;
    expect(gender.initial_option?.value).toBe("female");
    const other = block(view, speakerBlock.name("speaker_2"))?.element as PlainTextInput;
    expect(other.initial_value).toBeUndefined();
  });

  it("prefers the caller's prefill, including a member", () => {
    const view = buildSpeakerModal(naming(), {
      locale: "en",
      mode: "names",
      prefill: { speaker_2: { userId: "U0BOB", name: "Bob", gender: "male" } },
    });
    const user = block(view, speakerBlock.user("speaker_2"))?.element;
    expect(user).toMatchObject({ type: "users_select", initial_user: "U0BOB" });
    expect(block(view, speakerBlock.name("speaker_2"))?.element).toMatchObject({
      initial_value: "Bob",
    });
    expect(block(view, speakerBlock.gender("speaker_2"))?.element).toMatchObject({
      initial_option: { value: "male" },
    });
  });

  it("regenerates with the note's names, its context and a template input", () => {
    const view = buildSpeakerModal(done(), { locale: "en", mode: "regenerate" });
    expect(view.callback_id).toBe(VIEWS.regenerate);
    expect(view.title.text).toBe("Regenerate notes");
    expect(block(view, speakerBlock.name("speaker_1"))?.element).toMatchObject({
      initial_value: "Lan Nguyen",
    });
    expect(block(view, speakerBlock.gender("speaker_1"))?.element).toMatchObject({
      initial_option: { value: "female" },
    });
    expect(block(view, INPUTS.context.block)?.element).toMatchObject({
      type: "plain_text_input",
      multiline: true,
      initial_value: "Agenda: roadmap, budget",
    });
    expect(block(view, INPUTS.template.block)?.element).toMatchObject({
      type: "file_input",
      filetypes: ["docx"],
    });
  });

  it("does not pre-fill a context longer than Slack's input allows", () => {
    const job = done();
    job.note = { ...job.note, contextText: "x".repeat(3_001) };
    const view = buildSpeakerModal(job, { locale: "en", mode: "regenerate" });
    expectModalLimits(view);
    expect(block(view, INPUTS.context.block)?.element).not.toHaveProperty("initial_value");
  });

  it.each([20, 60])("shows the first speakers of %s and says how many keep their labels", (n) => {
    const job = naming({ speakers: manySpeakers(n) });
    for (const mode of ["names", "regenerate"] as const) {
      const source =
        mode === "names" ? job : done({ note: { ...done().note, speakers: manySpeakers(n) } });
      // Each with two quotes as long as the summary makes them.
      const long = Object.fromEntries(
        manySpeakers(n).map(({ speakerId }, i) => [
          speakerId,
          [
            { atSeconds: i * 10, text: `${"a".repeat(138)}…` },
            { atSeconds: i * 10 + 5, text: `${"b".repeat(138)}…` },
          ],
        ]),
      );
      const view = buildSpeakerModal(source, { locale: "en", mode, quotes: long });
      expectModalLimits(view);
      const shown = speakersInModal(source);
      expect(shown).toHaveLength(Math.min(n, MAX_MODAL_SPEAKERS));
      expect(block(view, speakerBlock.name(`speaker_${shown.length}`))).toBeDefined();
      expect(block(view, speakerBlock.name(`speaker_${shown.length + 1}`))).toBeUndefined();
      const hidden = n - shown.length;
      const line =
        hidden === 1 ? "1 more speaker keeps their label" : `${hidden} more speakers keep`;
      expect(JSON.stringify(view.blocks)).toContain(line);
    }
  });

  it("has no speakers to show before the transcript exists", () => {
    expect(speakersInModal(writing)).toHaveLength(3);
    const view = buildSpeakerModal({ ...naming(), speakers: [] }, { locale: "en", mode: "names" });
    expectModalLimits(view);
    expect(inputs(view.blocks)).toHaveLength(0);
  });
});
