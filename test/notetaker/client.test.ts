import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  NoteTakerAuthError,
  NoteTakerInputError,
  NoteTakerLinkExpiredError,
  NoteTakerProtocolError,
  NoteTakerRefusedError,
  NoteTakerTaskNotFoundError,
  NoteTakerTransientError,
} from "../../src/notetaker/index.ts";
import { MAX_AUDIO_BYTES } from "../../src/recordings/index.ts";
import { API_KEY, BASE_PATH, json, mockedClient } from "../../support/helpers/note-taker-mock.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

const TASK = "3f0c2a4e-6a53-4d4b-9d1e-0a8f4c1b2d3e";
const dialog = [
  { speaker_id: "speaker_1", start_seconds: 0, end_seconds: 4.2, text: "Let's start." },
  { speaker_id: "speaker_2", start_seconds: 4.2, end_seconds: 9, text: "Budget first." },
];

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let audioPath: string;
beforeAll(async () => {
  temp = await makeTempDir();
  audioPath = await temp.file("weekly-sync.m4a");
});
afterAll(() => temp.cleanup());

/** Header lookup that works for the object and array forms undici hands to mock callbacks. */
function header(headers: unknown, name: string): string | undefined {
  if (Array.isArray(headers)) {
    const i = headers.findIndex((h, n) => n % 2 === 0 && String(h).toLowerCase() === name);
    return i < 0 ? undefined : String(headers[i + 1]);
  }
  const entry = Object.entries((headers ?? {}) as Record<string, string>).find(
    ([key]) => key.toLowerCase() === name,
  );
  return entry?.[1];
}

describe("submitAudio", () => {
  it("streams the recording as multipart with a known length and the API key", async () => {
    const { api, client } = mockedClient();
    let seen: { headers: unknown; body: Readable } | undefined;
    api.intercept({ path: `${BASE_PATH}/audio2dialog`, method: "POST" }).reply((opts) => {
      seen = { headers: opts.headers, body: opts.body as Readable };
      return {
        statusCode: 202,
        data: { ok: true, data: { task_id: TASK } },
        responseOptions: json,
      };
    });
    const id = await client.submitAudio({
      path: audioPath,
      filename: "weekly-sync.m4a",
      speakers: [{ name: "Lan", gender: "female" }, { name: "Minh" }],
      contextText: "Q3 budget",
      languageHint: "VI",
    });
    expect(id).toBe(TASK);
    expect(header(seen?.headers, "x-api-key")).toBe(API_KEY);
    expect(header(seen?.headers, "content-type")).toMatch(/^multipart\/form-data; boundary=/);
    const body = await text(seen?.body as Readable);
    expect(Number(header(seen?.headers, "content-length"))).toBe(Buffer.byteLength(body));
    expect(body).toContain('name="audio"; filename="weekly-sync.m4a"');
    expect(body).toContain("fake audio bytes");
    expect(body).toContain('[{"name":"Lan","gender":"female"},{"name":"Minh"}]');
    expect(body).toMatch(/name="languageHint"\r\n\r\nvi\r\n/);
    expect(body).toMatch(/name="contextText"\r\n\r\nQ3 budget\r\n/);
  });

  it.each([
    ["an unsupported format", { filename: "notes.txt" }, /not a supported recording/],
    ["a language code that is not ISO 639-1", { languageHint: "english" }, /ISO 639-1/],
    ["an unknown ISO-looking code", { languageHint: "xx" }, /ISO 639-1/],
    [
      "a gender outside male/female/null",
      { speakers: [{ name: "Lan", gender: "other" }] },
      /gender/,
    ],
    ["a speaker hint without a name", { speakers: [{ name: " " }] }, /name/],
  ])("rejects %s before any request", async (_label, patch, message) => {
    const { client, agent } = mockedClient();
    const input = { path: audioPath, filename: "weekly-sync.m4a", ...patch } as never;
    await expect(client.submitAudio(input)).rejects.toThrow(message);
    await expect(client.submitAudio(input)).rejects.toBeInstanceOf(NoteTakerInputError);
    agent.assertNoPendingInterceptors();
  });

  it("rejects an empty file and a file of 300 MB + 1 byte before any request", async () => {
    const { client } = mockedClient();
    const empty = await temp.file("empty.mp3", "");
    const huge = await temp.sparse("huge.wav", MAX_AUDIO_BYTES + 1);
    await expect(client.submitAudio({ path: empty, filename: "empty.mp3" })).rejects.toThrow(
      /empty/,
    );
    await expect(client.submitAudio({ path: huge, filename: "huge.wav" })).rejects.toThrow(
      /over 300 MB/,
    );
    const limit = await temp.sparse("limit.wav", MAX_AUDIO_BYTES);
    const { api, client: accepting } = mockedClient();
    api
      .intercept({ path: `${BASE_PATH}/audio2dialog`, method: "POST" })
      .reply(202, { ok: true, data: { task_id: TASK } });
    await expect(accepting.submitAudio({ path: limit, filename: "limit.wav" })).resolves.toBe(TASK);
  });
});

describe("polling", () => {
  it.each([
    [0.4, 0.4, "40%"],
    [40, 0.4, "40%"],
    ["40%", 0.4, "40%"],
    ["aligning speakers", null, "aligning speakers"],
  ])("keeps polling an unnamed status with progress %j", async (raw, fraction, label) => {
    const { api, client } = mockedClient();
    api
      .intercept({ path: `${BASE_PATH}/audio2dialog/${TASK}` })
      .reply(200, { ok: true, data: { task_id: TASK, status: "diarizing", progress: raw } });
    const task = await client.getAudioTask(TASK);
    expect(task).toEqual({
      status: "running",
      rawStatus: "diarizing",
      progress: { fraction, label },
    });
  });

  it.each([null, undefined])("shows no bar when progress is %s", async (raw) => {
    const { api, client } = mockedClient();
    api
      .intercept({ path: `${BASE_PATH}/audio2dialog/${TASK}` })
      .reply(200, { ok: true, data: { status: "queued", progress: raw } });
    expect(await client.getAudioTask(TASK)).toMatchObject({ status: "running", progress: null });
  });

  it("returns the dialog link of a completed transcription and the message of a failed one", async () => {
    const { api, client } = mockedClient();
    const path = `${BASE_PATH}/audio2dialog/${TASK}`;
    api.intercept({ path }).reply(200, {
      ok: true,
      data: { task_id: TASK, status: "completed", result: { dialog_url: "https://files.test/d" } },
    });
    api.intercept({ path }).reply(200, {
      ok: true,
      data: { status: "failed", error: { message: "Audio is silent." } },
    });
    expect(await client.getAudioTask(TASK)).toEqual({
      status: "completed",
      result: { dialogUrl: "https://files.test/d" },
    });
    expect(await client.getAudioTask(TASK)).toEqual({
      status: "failed",
      message: "Audio is silent.",
    });
  });

  it("returns the Markdown and DOCX link of a completed note", async () => {
    const { api, client } = mockedClient();
    api.intercept({ path: `${BASE_PATH}/dialog2meeting/${TASK}` }).reply(200, {
      ok: true,
      data: {
        status: "completed",
        result: { markdown: "# Notes", docx_url: "https://files.test/n.docx?sig=1" },
      },
    });
    expect(await client.getNoteTask(TASK)).toEqual({
      status: "completed",
      result: { markdown: "# Notes", docxUrl: "https://files.test/n.docx?sig=1" },
    });
  });

  it("treats a completed task without a usable result as a protocol error", async () => {
    const { api, client } = mockedClient();
    api
      .intercept({ path: `${BASE_PATH}/dialog2meeting/${TASK}` })
      .reply(200, { ok: true, data: { status: "completed", result: { markdown: 3 } } });
    await expect(client.getNoteTask(TASK)).rejects.toBeInstanceOf(NoteTakerProtocolError);
  });
});

describe("errors and retries", () => {
  const path = `${BASE_PATH}/audio2dialog/${TASK}`;
  const running = { ok: true, data: { status: "processing" } };

  it("retries a 503 then succeeds", async () => {
    const { api, client, waits } = mockedClient();
    api
      .intercept({ path })
      .reply(503, { ok: false, error: { message: "busy" } })
      .times(2);
    api.intercept({ path }).reply(200, running);
    expect(await client.getAudioTask(TASK)).toMatchObject({ status: "running" });
    expect(waits).toHaveLength(2);
  });

  it("honours Retry-After on a 429, in seconds and as an HTTP date", async () => {
    const { api, client, waits } = mockedClient();
    api
      .intercept({ path })
      .reply(429, { message: "slow down" }, { headers: { "retry-after": "1" } });
    const date = new Date(Date.now() + 1_500).toUTCString();
    api.intercept({ path }).reply(429, "", { headers: { "retry-after": date } });
    api.intercept({ path }).reply(200, running);
    await client.getAudioTask(TASK);
    expect(waits[0]).toBe(1000);
    expect(waits[1]).toBeGreaterThan(0);
    expect(waits[1]).toBeLessThanOrEqual(1500);
  });

  it("gives up on a Retry-After longer than the policy allows, keeping the wait on the error", async () => {
    const { api, client, waits } = mockedClient();
    api.intercept({ path }).reply(429, "", { headers: { "retry-after": "600" } });
    const error = await client.getAudioTask(TASK).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoteTakerTransientError);
    expect((error as NoteTakerTransientError).retryAfterMs).toBe(600_000);
    expect(waits).toEqual([]);
  });

  it("retries network errors and gives up after the policy's retries", async () => {
    const { api, client, waits } = mockedClient();
    api.intercept({ path }).replyWithError(new Error("socket hang up")).times(4);
    await expect(client.getAudioTask(TASK)).rejects.toBeInstanceOf(NoteTakerTransientError);
    expect(waits).toHaveLength(3);
  });

  it("never retries a refused request and carries the server's message", async () => {
    const { api, client, waits } = mockedClient();
    let calls = 0;
    api.intercept({ path: `${BASE_PATH}/audio2dialog`, method: "POST" }).reply(() => {
      calls++;
      return {
        statusCode: 400,
        data: { ok: false, data: { error: { message: "Audio is corrupt." } } },
      };
    });
    const error = await client
      .submitAudio({ path: audioPath, filename: "weekly-sync.m4a" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoteTakerRefusedError);
    expect((error as Error).message).toBe("Audio is corrupt.");
    expect(calls).toBe(1);
    expect(waits).toEqual([]);
  });

  it.each([
    [401, NoteTakerAuthError],
    [403, NoteTakerAuthError],
    [404, NoteTakerTaskNotFoundError],
    [413, NoteTakerRefusedError],
    [415, NoteTakerRefusedError],
    [422, NoteTakerRefusedError],
  ])("maps HTTP %i on a poll to %o", async (status, type) => {
    const { api, client } = mockedClient();
    api.intercept({ path }).reply(status, { error: "nope" });
    await expect(client.getAudioTask(TASK)).rejects.toBeInstanceOf(type);
  });

  it.each([
    [{ data: { error: { message: "a" } }, error: { message: "b" } }, "a"],
    [{ error: { message: "b" }, message: "c" }, "b"],
    [{ message: "c", error: "d" }, "c"],
    [{ error: "d" }, "d"],
    ["<html>Bad Request</html>", "Bad Request"],
  ])("reads the error message from %j", async (body, expected) => {
    const { api, client } = mockedClient();
    api.intercept({ path }).reply(400, body);
    await expect(client.getAudioTask(TASK)).rejects.toThrow(expected);
  });

  it("treats an unreadable 2xx answer as a protocol error", async () => {
    const { api, client } = mockedClient();
    api.intercept({ path }).reply(200, "<html>proxy login</html>");
    await expect(client.getAudioTask(TASK)).rejects.toBeInstanceOf(NoteTakerProtocolError);
  });
});

describe("submitDialog", () => {
  async function submitAndCapture(
    input: Parameters<ReturnType<typeof mockedClient>["client"]["submitDialog"]>[0],
  ) {
    const { api, client } = mockedClient();
    let body: Readable | undefined;
    api.intercept({ path: `${BASE_PATH}/dialog2meeting`, method: "POST" }).reply((opts) => {
      body = opts.body as Readable;
      return { statusCode: 202, data: { ok: true, data: { task_id: TASK } } };
    });
    const id = await client.submitDialog(input);
    return { id, body: await text(body as Readable) };
  }

  it("uploads dialog.json as application/json and the speaker map as an array", async () => {
    const { id, body } = await submitAndCapture({
      dialog,
      speakerMap: [{ speaker_id: "speaker_1", name: "Lan", gender: "female" }],
      contextText: "Decisions on budget",
    });
    expect(id).toBe(TASK);
    expect(body).toContain(
      'name="dialog"; filename="dialog.json"\r\nContent-Type: application/json',
    );
    expect(body).toContain(JSON.stringify(dialog));
    expect(body).toContain('[{"speaker_id":"speaker_1","name":"Lan","gender":"female"}]');
  });

  it("converts the legacy speaker map to the array form", async () => {
    const { body } = await submitAndCapture({
      dialog,
      speakerMap: { speaker_1: "Lan", speaker_2: "Minh" },
    });
    expect(body).toContain(
      '[{"speaker_id":"speaker_1","name":"Lan"},{"speaker_id":"speaker_2","name":"Minh"}]',
    );
  });

  it("sends a DOCX template and refuses one that is not a zip file", async () => {
    const docx = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]);
    const { body } = await submitAndCapture({
      dialog,
      template: { filename: "t.docx", data: docx },
    });
    expect(body).toContain('name="template"; filename="t.docx"');
    const { client } = mockedClient();
    const notZip = { filename: "t.docx", data: new TextEncoder().encode("hello") };
    await expect(client.submitDialog({ dialog, template: notZip })).rejects.toThrow(
      /Word document/,
    );
  });

  it("refuses a speaker map naming someone who is not in the dialog", async () => {
    const { client } = mockedClient();
    await expect(
      client.submitDialog({ dialog, speakerMap: { speaker_9: "Ghost" } }),
    ).rejects.toBeInstanceOf(NoteTakerInputError);
  });
});

describe("result links", () => {
  it("follows the dialog_url redirect without sending the API key", async () => {
    const { origin, client } = mockedClient();
    origin("https://files.test")
      .intercept({ path: "/r/dialog/1" })
      .reply(302, "", { headers: { location: "https://cdn.test/dialog.json?sig=abc" } });
    let headers: unknown;
    origin("https://cdn.test")
      .intercept({ path: "/dialog.json?sig=abc" })
      .reply((opts) => {
        headers = opts.headers;
        return { statusCode: 200, data: JSON.stringify(dialog) };
      });
    expect(await client.fetchDialog("https://files.test/r/dialog/1")).toEqual(dialog);
    expect(header(headers, "x-api-key")).toBeUndefined();
    expect(header(headers, "authorization")).toBeUndefined();
  });

  it("refuses a dialog file that is not a dialog array", async () => {
    const { origin, client } = mockedClient();
    origin("https://cdn.test").intercept({ path: "/d.json" }).reply(200, { dialog: [] });
    await expect(client.fetchDialog("https://cdn.test/d.json")).rejects.toThrow(
      /not a valid dialog/,
    );
  });

  it("downloads the DOCX to disk", async () => {
    const { origin, client } = mockedClient();
    const docx = Buffer.concat([Buffer.from("PK\u0003\u0004", "latin1"), Buffer.alloc(1000, 7)]);
    origin("https://cdn.test").intercept({ path: "/n.docx?sig=1" }).reply(200, docx);
    const dest = join(temp.dir, "note.docx");
    expect(await client.downloadDocx("https://cdn.test/n.docx?sig=1", dest)).toBe(1004);
    expect(await readFile(dest)).toEqual(docx);
  });

  it.each([403, 404, 410])("reports an expired DOCX link (%i) as its own error", async (status) => {
    const { origin, client } = mockedClient();
    origin("https://cdn.test").intercept({ path: "/n.docx" }).reply(status, "expired");
    await expect(
      client.downloadDocx("https://cdn.test/n.docx", join(temp.dir, "x.docx")),
    ).rejects.toBeInstanceOf(NoteTakerLinkExpiredError);
  });

  it("refuses a DOCX link that returns something else than a DOCX", async () => {
    const { origin, client } = mockedClient();
    origin("https://cdn.test").intercept({ path: "/n.docx" }).reply(200, "<html>login</html>");
    await expect(
      client.downloadDocx("https://cdn.test/n.docx", join(temp.dir, "y.docx")),
    ).rejects.toThrow(/not return a DOCX/);
  });
});
