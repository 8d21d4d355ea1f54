import { describe, expect, it } from "vitest";
import {
  decideFailure,
  JobStepError,
  SlackPortError,
  summarizeSpeakers,
} from "../../src/jobs/index.ts";
import {
  NoteTakerAuthError,
  NoteTakerRefusedError,
  NoteTakerTransientError,
} from "../../src/notetaker/index.ts";

describe("summarizeSpeakers", () => {
  it("gives talk time, share and the two longest quotes in time order", () => {
    const long = "x".repeat(200);
    const { speakers, quotes } = summarizeSpeakers([
      { speaker_id: "speaker_1", start_seconds: 0, end_seconds: 30, text: "Short." },
      {
        speaker_id: "speaker_2",
        start_seconds: 30,
        end_seconds: 40,
        text: "Budget is tight this quarter.",
      },
      {
        speaker_id: "speaker_1",
        start_seconds: 40,
        end_seconds: 70,
        text: "A longer point about hiring.",
      },
      { speaker_id: "speaker_1", start_seconds: 70, end_seconds: 90, text: long },
    ]);
    expect(speakers).toEqual([
      { speakerId: "speaker_1", seconds: 80, share: 0.889 },
      { speakerId: "speaker_2", seconds: 10, share: 0.111 },
    ]);
    expect(quotes.speaker_1?.map((q) => q.atSeconds)).toEqual([40, 70]);
    expect(quotes.speaker_1?.[1]?.text).toHaveLength(140);
    expect(quotes.speaker_1?.[1]?.text.endsWith("…")).toBe(true);
    expect(quotes.speaker_2).toEqual([{ atSeconds: 30, text: "Budget is tight this quarter." }]);
  });
});

describe("decideFailure", () => {
  const options = { maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 4000, random: () => 0 };
  it("retries transient trouble with growing waits, honouring Retry-After, then fails", () => {
    const busy = new NoteTakerTransientError("busy", { retryAfterMs: 9000 });
    // The status message says the Note Service is not answering while the job waits.
    const waiting = "note_service";
    expect(decideFailure(new NoteTakerTransientError("x"), 0, options)).toEqual({
      kind: "retry_later",
      delayMs: 1000,
      waiting,
    });
    expect(decideFailure(new NoteTakerTransientError("x"), 1, options)).toEqual({
      kind: "retry_later",
      delayMs: 2000,
      waiting,
    });
    expect(decideFailure(busy, 0, options)).toEqual({
      kind: "retry_later",
      delayMs: 9000,
      waiting,
    });
    expect(decideFailure(busy, 2, options)).toMatchObject({
      kind: "fail",
      failure: { code: "unavailable" },
    });
    // Slack that never answered is not Slack refusing: the sentence says which.
    expect(decideFailure(new SlackPortError("x", { transient: true }), 2, options)).toMatchObject({
      failure: { code: "slack_unavailable" },
    });
  });

  it("fails at once on what a retry cannot fix, keeping the service's message", () => {
    expect(decideFailure(new NoteTakerRefusedError("Audio is corrupt."), 0, options)).toEqual({
      kind: "fail",
      failure: { code: "refused", detail: "Audio is corrupt." },
      retryable: false,
    });
    expect(decideFailure(new NoteTakerAuthError("bad key"), 0, options)).toMatchObject({
      failure: { code: "auth" },
      retryable: true,
    });
    expect(decideFailure(new JobStepError({ code: "no_speech" }, false), 0, options)).toMatchObject(
      {
        failure: { code: "no_speech" },
        retryable: false,
      },
    );
  });
});
