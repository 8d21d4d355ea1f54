import type { ActionsBlock, Button, KnownBlock, SectionBlock } from "@slack/types";
import { describe, expect, it } from "vitest";
import type { Job } from "../../../src/jobs/index.ts";
import { ACTIONS, METADATA_EVENT_TYPE } from "../../../src/slack/ids.ts";
import { LOCALES, t } from "../../../src/slack/messages/catalog.ts";
import {
  buildLostStatus,
  buildStatusMessage,
  buildStatusMetadata,
} from "../../../src/slack/views/status-message.ts";
import {
  expectMessageLimits,
  expectNoLiveMentions,
} from "../../../support/helpers/slack-limits.ts";
import {
  canceled,
  delivering,
  done,
  downloading,
  everyStage,
  failed,
  NOW,
  naming,
  queued,
  transcribing,
  writing,
} from "./fixtures.ts";

const en = { locale: "en", now: NOW } as const;

function sectionText(blocks: KnownBlock[]): string {
  return (blocks[0] as SectionBlock).text?.text ?? "";
}

function buttons(blocks: KnownBlock[]): Button[] {
  const block = blocks.find((b): b is ActionsBlock => b.type === "actions");
  return (block?.elements ?? []) as Button[];
}

function actionIds(job: Job): string[] {
  return buttons(buildStatusMessage(job, en).blocks).map((b) => b.action_id ?? "");
}

describe("buildStatusMessage", () => {
  it.each(LOCALES)("stays within Slack's limits in every stage (%s)", (locale) => {
    for (const job of everyStage) {
      const message = buildStatusMessage(job, { locale, now: NOW });
      expectMessageLimits(message);
      expectNoLiveMentions(message, ["<@U2>"]);
    }
  });

  it("says what happens in each stage, in a plain fallback sentence", () => {
    const texts = everyStage.map((job) => buildStatusMessage(job, en).text);
    expect(texts).toEqual([
      "Getting ready to transcribe weekly-sync.m4a…",
      "Downloading weekly-sync.m4a…",
      "Transcribing weekly-sync.m4a… 40%",
      "Heard 3 speakers. Name them so the notes use real names.",
      "Writing the notes…",
      "Posting the notes…",
      "Notes ready.",
      "Could not make notes from weekly-sync.m4a. The Note Service could not process it: Audio decoding failed",
      "Canceled by <@U2>.",
    ]);
  });

  it("speaks Vietnamese", () => {
    const message = buildStatusMessage(transcribing({ fraction: 0.4, label: "40%" }), {
      locale: "vi",
      now: NOW,
    });
    expect(message.text).toBe("Đang phiên âm weekly-sync.m4a… 40%");
    expect(JSON.stringify(message.blocks)).toContain("Đã chạy 03:05");
    expect(buttons(message.blocks)[0]?.text.text).toBe("Hủy");
  });

  it("draws a progress bar when the fraction is known, the label when only text is", () => {
    const bar = sectionText(
      buildStatusMessage(transcribing({ fraction: 0.4, label: "40%" }), en).blocks,
    );
    expect(bar).toContain("▓▓▓▓░░░░░░ 40%");
    const label = buildStatusMessage(
      transcribing({ fraction: null, label: "step 2 of 3 <!here>" }),
      en,
    );
    expect(sectionText(label.blocks)).toContain("step 2 of 3 &lt;!here&gt;");
    expect(label.text).toBe("Transcribing weekly-sync.m4a…");
    const none = sectionText(buildStatusMessage(transcribing(null), en).blocks);
    expect(none).toBe("Transcribing weekly-sync.m4a…");
  });

  it("shows the elapsed time while running and the time taken once finished", () => {
    expect(JSON.stringify(buildStatusMessage(queued, en).blocks)).toContain("Elapsed 03:05");
    expect(JSON.stringify(buildStatusMessage(done(), en).blocks)).toContain("Took 12:40");
  });

  it("offers Cancel in every active stage, and only there", () => {
    for (const job of [queued, downloading, transcribing(null), naming(), writing, delivering]) {
      expect(actionIds(job)).toContain(ACTIONS.cancel);
    }
    for (const job of [done(), failed({ code: "auth" }, true), canceled]) {
      expect(actionIds(job)).not.toContain(ACTIONS.cancel);
    }
  });

  it("asks before canceling", () => {
    const cancel = buttons(buildStatusMessage(queued, en).blocks).find(
      (b) => b.action_id === ACTIONS.cancel,
    );
    expect(cancel?.style).toBe("danger");
    expect(cancel?.confirm?.title?.text).toBe("Cancel these notes?");
  });

  it("offers Name speakers and Skip while naming, with each speaker's share", () => {
    const message = buildStatusMessage(naming(), en);
    expect(actionIds(naming())).toEqual([ACTIONS.nameSpeakers, ACTIONS.skipNaming, ACTIONS.cancel]);
    const text = sectionText(message.blocks);
    expect(text).toContain("Heard 3 speakers.");
    expect(text).toContain("*Speaker 1* · 45% of talk time");
    expect(text).toContain("*Speaker 3* · 20% of talk time");
  });

  it("says 1 speaker in the singular, and takes an explicit count", () => {
    const one = naming({ speakers: naming().speakers.slice(0, 1) });
    expect(buildStatusMessage(one, en).text).toBe(
      "Heard 1 speaker. Name them so the notes use real names.",
    );
    expect(buildStatusMessage(naming(), { ...en, speakerCount: 5 }).text).toMatch(/^Heard 5 /);
  });

  it("lists at most 10 speakers and counts the rest", () => {
    const many = naming({
      speakers: Array.from({ length: 30 }, (_, i) => ({
        speakerId: `speaker_${i + 1}`,
        seconds: 1,
        share: 1 / 30,
        quotes: [],
      })),
    });
    const message = buildStatusMessage(many, en);
    expectMessageLimits(message);
    expect(sectionText(message.blocks)).toContain("…and 20 more");
  });

  it("offers Regenerate when done and Retry when a retry can help", () => {
    expect(actionIds(done())).toEqual([ACTIONS.regenerate]);
    expect(actionIds(failed({ code: "unavailable" }, true))).toEqual([ACTIONS.retry]);
    expect(actionIds(failed({ code: "no_speech" }, false))).toEqual([]);
    expect(actionIds(canceled)).toEqual([]);
  });

  it("puts the job id in every button's value", () => {
    for (const job of everyStage) {
      for (const b of buttons(buildStatusMessage(job, en).blocks)) expect(b.value).toBe("job-1");
    }
  });

  it("escapes the file name and the service's message", () => {
    const evil = failed({ code: "refused", detail: "bad <!channel> & <@U999> @here" }, false);
    evil.source = { ...evil.source, filename: "<!everyone>*.m4a" };
    const message = buildStatusMessage(evil, en);
    expectNoLiveMentions(message);
    const text = sectionText(message.blocks);
    expect(text).toContain("&lt;!everyone&gt;*.m4a");
    expect(text).toContain("bad &lt;!channel&gt; &amp; &lt;@U999&gt; ＠here");
    expect(message.text).toContain("‹!everyone›");
  });

  it("keeps the section within 3,000 characters for very long names and messages", () => {
    const long = failed({ code: "task_failed", detail: "&".repeat(5_000) }, true);
    long.source = { ...long.source, filename: `${"<".repeat(400)}.m4a` };
    const message = buildStatusMessage(long, en);
    expectMessageLimits(message);
    expect(sectionText(message.blocks)).not.toMatch(/&a?m?p?…/);
  });

  it("explains each failure in one sentence", () => {
    const say = (failure: Parameters<typeof failed>[0]) =>
      buildStatusMessage(failed(failure, true), en).text.replace(
        "Could not make notes from weekly-sync.m4a. ",
        "",
      );
    expect(say({ code: "auth" })).toBe(
      "The Note Service did not accept this app's API key; an admin must correct it in the bot's settings.",
    );
    expect(say({ code: "timeout", detail: "180" })).toBe(
      "It took longer than 180 minutes, so I stopped waiting.",
    );
    expect(say({ code: "refused", detail: "Unsupported codec" })).toBe(
      "The Note Service refused the request: Unsupported codec",
    );
    expect(say({ code: "task_failed" })).toBe("The Note Service could not process it.");
    expect(say({ code: "invalid_input", detail: "template" })).toBe(
      "The Word template is no longer available.",
    );
    expect(say({ code: "dialog_too_large", detail: "20" })).toBe(
      "The transcript the Note Service returned is larger than 20 MB, so I stopped reading it.",
    );
    expect(say({ code: "docx_too_large", detail: "<!here>" })).toBe(
      "The Word document the Note Service returned is too large, so I did not post it.",
    );
    expect(say({ code: "link_refused" })).toMatch(/only public https links are allowed/);
  });

  it("says a file that is not audio in one sentence naming it, in both languages, with no Retry", () => {
    const notAudio = failed({ code: "not_audio" }, false);
    notAudio.source = { ...notAudio.source, filename: "notes.mp3" };
    const message = buildStatusMessage(notAudio, en);
    expect(message.text).toBe("notes.mp3 isn't an audio recording, so I can't make notes from it.");
    expect(sectionText(message.blocks)).toBe(message.text);
    expect(actionIds(notAudio)).toEqual([]);
    expect(buildStatusMessage(notAudio, { locale: "vi", now: NOW }).text).toBe(
      "notes.mp3 không phải là bản ghi âm, nên tôi không thể tạo biên bản từ tệp này.",
    );
  });

  it("says which format a recording really is when the Note Service does not take it", () => {
    const aiff = failed({ code: "unsupported_container", detail: "AIFF" }, false);
    expect(buildStatusMessage(aiff, en).text).toBe(
      "weekly-sync.m4a is really AIFF, a format the Note Service doesn't take: save it as one of mp3, mp4, wav, m4a, ogg, flac, aac, opus, webm and share it again.",
    );
    const unnamed = failed({ code: "unsupported_container" }, false);
    expect(buildStatusMessage(unnamed, en).text).toMatch(
      /^weekly-sync\.m4a is in a format the Note Service doesn't take: /,
    );
  });

  it("escapes the file name in a failure that names it", () => {
    const evil = failed({ code: "not_audio" }, false);
    evil.source = { ...evil.source, filename: "<!channel> & notes.mp3" };
    const message = buildStatusMessage(evil, en);
    expectNoLiveMentions(message);
    expect(sectionText(message.blocks)).toContain("&lt;!channel&gt; &amp; notes.mp3 isn't");
  });

  it("names who canceled with a mention, and anything else as text", () => {
    expect(buildStatusMessage(canceled, en).text).toBe("Canceled by <@U2>.");
    const odd = { ...canceled, canceledBy: "<!here>" } as Job;
    expectNoLiveMentions(buildStatusMessage(odd, en));
  });
});

describe("buildStatusMetadata", () => {
  it("tags the status message with the job id, and the recording's file id when given", () => {
    expect(buildStatusMetadata("job-1")).toEqual({
      event_type: METADATA_EVENT_TYPE,
      event_payload: { job_id: "job-1", kind: "status" },
    });
    expect(buildStatusMetadata("job-1", "F0REC")).toEqual({
      event_type: METADATA_EVENT_TYPE,
      event_payload: { job_id: "job-1", kind: "status", file_id: "F0REC" },
    });
  });
});

describe("buildLostStatus", () => {
  it.each(LOCALES)("is one sentence and no button (%s)", (locale) => {
    const lost = buildLostStatus(locale);
    expect(lost.blocks).toEqual([{ type: "section", text: { type: "mrkdwn", text: lost.text } }]);
    expect(lost.text).toMatch(locale === "en" ? /^This recording's notes were lost/ : /^Biên bản/);
  });
});

describe("the canvas in the status message", () => {
  const canvas = { id: "F0CANVAS01", delivery: 1, url: "https://t.slack.test/docs/T1/F0CANVAS01" };

  it.each(LOCALES)("links it, for the channel or for the person in a DM (%s)", (locale) => {
    const inChannel = sectionText(
      buildStatusMessage(done({ canvas }), { locale, now: NOW }).blocks,
    );
    const dmJob = done({ canvas });
    const inDm = buildStatusMessage(
      { ...dmJob, origin: { ...dmJob.origin, channelId: "D0ALICEDM1" } },
      { locale, now: NOW },
    );
    expect(inChannel).toContain(`<${canvas.url}|`);
    expect(sectionText(inDm.blocks)).toContain(`<${canvas.url}|`);
    expect(sectionText(inDm.blocks)).not.toBe(inChannel);
    expect(sectionText(inDm.blocks)).toContain(locale === "en" ? "shared with you" : "với bạn");
  });

  it.each(LOCALES)("says once, in plain words, that Slack would not have one (%s)", (locale) => {
    const message = buildStatusMessage(done({ canvasRefused: "refused" }), { locale, now: NOW });
    expectMessageLimits(message);
    const sentence = t(locale, "status.no_canvas.refused");
    expect(JSON.stringify(message.blocks).split(sentence)).toHaveLength(2);
    expect(sentence).toMatch(locale === "en" ? /^No canvas: Slack would not/ : /^Không có canvas/);
    expect(actionIds(done({ canvasRefused: "refused" }))).not.toContain(ACTIONS.retry);
  });
});
