import type { InputBlock, PlainTextInput, StaticSelect } from "@slack/types";
import { describe, expect, it } from "vitest";
import {
  ACTIONS,
  INPUTS,
  MODAL_BLOCKS,
  SPEAKER_ACTIONS,
  speakerBlock,
  VIEWS,
} from "../../../src/slack/ids.ts";
import { LOCALES, t } from "../../../src/slack/messages/catalog.ts";
import {
  buildSpeakerModal,
  parseSpeakerModalMetadata,
  SPEAKERS_PER_PAGE,
  speakerModalMetadata,
  speakerPages,
  speakersInModal,
} from "../../../src/slack/views/speaker-modal.ts";
import { expectModalLimits, expectNoLiveMentions } from "../../../support/helpers/slack-limits.ts";
import { done, manySpeakers, naming, quotes, writing } from "./fixtures.ts";

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

  it.each(LOCALES)(
    "regenerates with members still picked and unnamed speakers still empty (%s)",
    (locale) => {
      const job = done();
      job.note = {
        ...job.note,
        speakerMap: [
          { speakerId: "speaker_1", name: "Lan Nguyen", gender: "female" },
          // The note was written with a picked member's real name and a neutral label.
          { speakerId: "speaker_2", name: "Bob Tran", gender: "male" },
          { speakerId: "speaker_3", name: t(locale, "speakers.label", { number: 3 }) },
        ],
        members: { speaker_2: "U0BOB" },
      };
      job.note.speakers = [
        ...job.note.speakers,
        { speakerId: "speaker_3", seconds: 30, share: 0.1 },
      ];
      const view = buildSpeakerModal(job, { locale, mode: "regenerate" });
      expect(block(view, speakerBlock.user("speaker_2"))?.element).toMatchObject({
        initial_user: "U0BOB",
      });
      const bobName = block(view, speakerBlock.name("speaker_2"))?.element as PlainTextInput;
      expect(bobName.initial_value).toBeUndefined();
      expect(block(view, speakerBlock.gender("speaker_2"))?.element).toMatchObject({
        initial_option: { value: "male" },
      });
      const unnamed = block(view, speakerBlock.name("speaker_3"))?.element as PlainTextInput;
      expect(unnamed.initial_value).toBeUndefined();
      const unnamedUser = block(view, speakerBlock.user("speaker_3"))?.element;
      expect(unnamedUser).not.toHaveProperty("initial_user");
      expect(block(view, speakerBlock.name("speaker_1"))?.element).toMatchObject({
        initial_value: "Lan Nguyen",
      });
    },
  );

  it("does not pre-fill a context longer than Slack's input allows", () => {
    const job = done();
    job.note = { ...job.note, contextText: "x".repeat(3_001) };
    const view = buildSpeakerModal(job, { locale: "en", mode: "regenerate" });
    expectModalLimits(view);
    expect(block(view, INPUTS.context.block)?.element).not.toHaveProperty("initial_value");
  });

  it.each([20, 60])("splits %s speakers over pages, each within Slack's limits", (n) => {
    for (const mode of ["names", "regenerate"] as const) {
      const source =
        mode === "names"
          ? naming({ speakers: manySpeakers(n) })
          : done({ note: { ...done().note, speakers: manySpeakers(n) } });
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
      const pages = speakerPages(source);
      expect(pages.flat()).toHaveLength(n);
      expect(pages.length).toBe(Math.ceil(n / SPEAKERS_PER_PAGE));
      pages.forEach((page, index) => {
        const view = buildSpeakerModal(source, { locale: "en", mode, quotes: long, page: index });
        expectModalLimits(view);
        const last = index === pages.length - 1;
        for (const { speakerId } of page) {
          expect(block(view, speakerBlock.name(speakerId))).toBeDefined();
        }
        expect(
          inputs(view.blocks).filter((b) => speakerBlock.parse(b.block_id ?? "")),
        ).toHaveLength(page.length * 3);
        expect(view.submit?.text).toBe(
          last ? (mode === "names" ? "Write notes" : "Regenerate") : "Next",
        );
        expect(JSON.stringify(view.blocks)).toContain(`Page ${index + 1} of ${pages.length}`);
        expect(block(view, INPUTS.context.block) !== undefined).toBe(last && mode === "regenerate");
        const previous = view.blocks.find((b) => b.block_id === MODAL_BLOCKS.speakerPages);
        expect(previous !== undefined).toBe(index > 0);
        if (index > 0) expect(JSON.stringify(previous)).toContain(ACTIONS.speakersPrevious);
        expect(parseSpeakerModalMetadata(view.private_metadata)).toEqual({
          jobId: source.id,
          page: index,
        });
      });
    }
  });

  it("shows the most heard first", () => {
    const job = naming({
      speakers: [
        { speakerId: "speaker_1", seconds: 5, share: 0.05 },
        { speakerId: "speaker_2", seconds: 80, share: 0.8 },
        { speakerId: "speaker_3", seconds: 15, share: 0.15 },
      ],
    });
    expect(speakersInModal(job).map((s) => s.speakerId)).toEqual([
      "speaker_2",
      "speaker_3",
      "speaker_1",
    ]);
  });

  it("shows what was entered on a page, and a context typed earlier, when it comes back", () => {
    const job = done({ note: { ...done().note, speakers: manySpeakers(25) } });
    const view = buildSpeakerModal(job, {
      locale: "en",
      mode: "regenerate",
      page: 1,
      prefill: { speaker_20: { name: "Lan" } },
      contextText: "Typed before going back",
    });
    expect(block(view, speakerBlock.name("speaker_20"))?.element).toMatchObject({
      initial_value: "Lan",
    });
    expect(block(view, INPUTS.context.block)?.element).toMatchObject({
      initial_value: "Typed before going back",
    });
  });

  it("keeps the job id alone as the first page's metadata, as modals opened before pages", () => {
    expect(speakerModalMetadata("job-1", 0)).toBe("job-1");
    expect(parseSpeakerModalMetadata("job-1")).toEqual({ jobId: "job-1", page: 0 });
    expect(parseSpeakerModalMetadata(speakerModalMetadata("job-1", 2))).toEqual({
      jobId: "job-1",
      page: 2,
    });
    for (const junk of ["", "{", '{"jobId":"x","page":-1}', '{"page":1}', 42, undefined]) {
      expect(parseSpeakerModalMetadata(junk)).toBeUndefined();
    }
    expect(parseSpeakerModalMetadata("x".repeat(3_000))?.jobId).toHaveLength(100);
  });

  it("has no speakers to show before the transcript exists", () => {
    expect(speakersInModal(writing)).toHaveLength(3);
    const view = buildSpeakerModal({ ...naming(), speakers: [] }, { locale: "en", mode: "names" });
    expectModalLimits(view);
    expect(inputs(view.blocks)).toHaveLength(0);
  });
});
