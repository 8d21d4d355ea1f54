import { describe, expect, it } from "vitest";
import { decideFailure, SlackPortError } from "../../src/jobs/index.ts";
import {
  NoteTakerLinkRefusedError,
  NoteTakerProtocolError,
  NoteTakerTooLargeError,
} from "../../src/notetaker/index.ts";

const MIB = 1024 * 1024;

describe("decideFailure for result links", () => {
  it("fails a refused link at once, with no retry offered", () => {
    const error = new NoteTakerLinkRefusedError("A result link is not https (files.example.com).");
    expect(decideFailure(error, 0)).toEqual({
      kind: "fail",
      failure: { code: "link_refused" },
      retryable: false,
    });
  });

  it("fails an oversized transcript or DOCX with its cap in megabytes, not as a bad answer", () => {
    expect(decideFailure(new NoteTakerTooLargeError("dialog", 20 * MIB), 0)).toEqual({
      kind: "fail",
      failure: { code: "dialog_too_large", detail: "20" },
      retryable: false,
    });
    expect(decideFailure(new NoteTakerTooLargeError("docx", 25 * MIB), 3)).toEqual({
      kind: "fail",
      failure: { code: "docx_too_large", detail: "25" },
      retryable: false,
    });
    // Other unreadable answers stay what they were.
    expect(decideFailure(new NoteTakerProtocolError("not a dialog"), 0)).toMatchObject({
      failure: { code: "bad_response" },
      retryable: true,
    });
  });
});

describe("decideFailure for Slack", () => {
  it("tries a rate-limited Slack call again no sooner than Slack's Retry-After", () => {
    const limited = new SlackPortError("Slack status update failed: ratelimited", {
      transient: true,
      retryAfterMs: 45_000,
    });
    const decision = decideFailure(limited, 0, {
      maxAttempts: 8,
      baseDelayMs: 2_000,
      maxDelayMs: 300_000,
      random: () => 0,
    });
    expect(decision).toEqual({ kind: "retry_later", delayMs: 45_000 });
  });
});
