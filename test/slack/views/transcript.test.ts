import { describe, expect, it } from "vitest";
import { segmentsOf } from "../../../src/notetaker/index.ts";
import { buildTranscript } from "../../../src/slack/views/transcript.ts";

const dialog = [
  { speaker_id: "speaker_1", start_seconds: 0, end_seconds: 4.25, text: "Hello\nteam." },
  { speaker_id: "speaker_2", start_seconds: 3725.5, end_seconds: 3730, text: "a <b> & c --> d" },
  { speaker_id: "speaker_3", start_seconds: 3731, end_seconds: 3732, text: "  " },
];

describe("buildTranscript", () => {
  it("writes [hh:mm:ss] Name: text lines with the chosen names, neutral labels for the rest", () => {
    const [txt] = buildTranscript(
      segmentsOf(dialog),
      [{ speakerId: "speaker_1", name: "Lan\u202E" }],
      "en",
    );
    expect(txt?.extension).toBe("txt");
    expect(txt?.content).toBe(
      "[00:00:00] Lan: Hello team.\n[01:02:05] Speaker 2: a <b> & c --> d\n",
    );
  });

  it("writes WebVTT cues with voices, cue text escaped", () => {
    const [, vtt] = buildTranscript(segmentsOf(dialog), [], "vi");
    expect(vtt?.extension).toBe("vtt");
    expect(vtt?.content).toBe(
      "WEBVTT\n\n00:00:00.000 --> 00:00:04.250\n<v Người nói 1>Hello team.\n\n" +
        "01:02:05.500 --> 01:02:10.000\n<v Người nói 2>a &lt;b&gt; &amp; c --&gt; d\n",
    );
  });
});
