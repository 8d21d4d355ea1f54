import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import {
  API_KEY_REFUSED,
  BASE_URL_UNREACHABLE,
  BASE_URL_WRONG,
  errorFromResponse,
  NoteTakerAddressError,
  NoteTakerTaskNotFoundError,
  outcomeOf,
  watchNoteService,
} from "../../src/notetaker/index.ts";

function watched(unreachableAfterMs = 60_000) {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino(
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  let clock = 0;
  const watch = watchNoteService(logger, { unreachableAfterMs, now: () => clock });
  const advance = (ms: number) => {
    clock += ms;
  };
  return { lines, watch, advance };
}

describe("errorFromResponse and a 404", () => {
  const answer = { status: 404, body: { message: "No such endpoint." }, statusText: "" };
  it("to a submission: the address is wrong", () => {
    const error = errorFromResponse({ ...answer, retryAfterMs: undefined, isPoll: false });
    expect(error).toBeInstanceOf(NoteTakerAddressError);
    expect(outcomeOf(error)).toBe("address");
  });
  it("to a poll: the task is lost", () => {
    const error = errorFromResponse({ ...answer, retryAfterMs: undefined, isPoll: true });
    expect(error).toBeInstanceOf(NoteTakerTaskNotFoundError);
  });
});

describe("watchNoteService", () => {
  it("tells a refused key and a wrong address once each, naming the variable, until a call passes", () => {
    const { lines, watch } = watched();
    for (let i = 0; i < 3; i++) watch.onRequest("submitAudio", "address");
    for (let i = 0; i < 3; i++) watch.onRequest("submitAudio", "auth");
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [50, BASE_URL_WRONG],
      [50, API_KEY_REFUSED],
    ]);
    expect(BASE_URL_WRONG).toContain("NOTE_TAKER_BASE_URL");
    watch.onRequest("submitAudio", "ok");
    watch.onRequest("submitAudio", "address");
    expect(lines).toHaveLength(3);
  });

  it("tells an unreachable service once it has failed to connect for the whole wait, and readiness reads it", () => {
    const { lines, watch, advance } = watched(60_000);
    watch.onRequest("submitAudio", "network");
    advance(59_000);
    watch.onRequest("submitAudio", "network");
    expect(lines).toHaveLength(0);
    expect(watch.unreachableSince()).toBeUndefined();
    advance(1_000);
    expect(watch.unreachableSince()).toBe(0);
    watch.onRequest("submitAudio", "network");
    watch.onRequest("submitAudio", "network");
    expect(lines.map((l) => l.msg)).toEqual([BASE_URL_UNREACHABLE]);
    expect(BASE_URL_UNREACHABLE).toContain("NOTE_TAKER_BASE_URL");
  });

  it("starts the wait again after any answer: a service that answers is reachable", () => {
    const { lines, watch, advance } = watched(60_000);
    watch.onRequest("submitAudio", "network");
    advance(50_000);
    watch.onRequest("pollAudio", "transient");
    advance(50_000);
    watch.onRequest("submitAudio", "network");
    expect(watch.unreachableSince()).toBeUndefined();
    expect(lines).toHaveLength(0);
  });
});
