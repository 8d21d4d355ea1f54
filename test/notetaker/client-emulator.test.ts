import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type AudioResult,
  fastRetryPolicy,
  NoteTakerAuthError,
  NoteTakerClient,
  NoteTakerLinkExpiredError,
  NoteTakerRefusedError,
  type Task,
} from "../../src/notetaker/index.ts";
import { createEmulator, type Emulator } from "../../support/emulator/create-emulator.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

let emulator: Emulator;
let client: NoteTakerClient;
let temp: Awaited<ReturnType<typeof makeTempDir>>;

beforeAll(async () => {
  emulator = await createEmulator();
  temp = await makeTempDir();
});
afterAll(async () => {
  await emulator.close();
  await temp.cleanup();
});
beforeEach(() => {
  emulator.reset();
  client = new NoteTakerClient({
    baseUrl: emulator.baseUrl,
    apiKey: emulator.apiKey,
    retryPolicy: fastRetryPolicy,
  });
});

async function pollUntilDone<R>(poll: () => Promise<Task<R>>, seen: Task<R>[] = []) {
  for (let i = 0; i < 50; i++) {
    const task = await poll();
    seen.push(task);
    if (task.status !== "running") return task;
  }
  throw new Error("task never finished");
}

describe("client against the emulator over real HTTP", () => {
  it("walks audio → dialog → note → DOCX, and the result origin never sees the API key", async () => {
    emulator.knobs.pollsToComplete = 3;
    emulator.knobs.progressForm = "percent";
    const audio = await temp.file("weekly-sync.m4a", Buffer.alloc(64 * 1024, 1));
    const audioTask = await client.submitAudio({
      path: audio,
      filename: "weekly-sync.m4a",
      speakers: [{ name: "Lan", gender: "female" }],
      contextText: "Q3 budget",
      languageHint: "vi",
    });
    const seen: Task<AudioResult>[] = [];
    const transcribed = await pollUntilDone(() => client.getAudioTask(audioTask), seen);
    expect(seen.some((t) => t.status === "running" && t.progress !== null)).toBe(true);
    if (transcribed.status !== "completed") throw new Error("transcription did not complete");
    expect(emulator.stats.audioSubmissions[0]).toMatchObject({
      filename: "weekly-sync.m4a",
      bytes: 64 * 1024,
      languageHint: "vi",
      contextText: "Q3 budget",
      speakers: [{ name: "Lan", gender: "female" }],
    });

    const dialog = await client.fetchDialog(transcribed.result.dialogUrl);
    expect(dialog.length).toBeGreaterThan(0);
    const noteTask = await client.submitDialog({
      dialog,
      speakerMap: { speaker_1: "Lan Nguyen", speaker_2: "Minh Tran" },
      contextText: "Decisions on the budget",
    });
    const written = await pollUntilDone(() => client.getNoteTask(noteTask));
    if (written.status !== "completed") throw new Error("note did not complete");
    expect(written.result.markdown).toContain("Lan Nguyen");
    expect(written.result.markdown).toContain("Minh Tran");
    expect(emulator.stats.noteSubmissions[0]?.speakerMap).toEqual([
      { speaker_id: "speaker_1", name: "Lan Nguyen" },
      { speaker_id: "speaker_2", name: "Minh Tran" },
    ]);

    const docxPath = join(temp.dir, "note.docx");
    const size = await client.downloadDocx(written.result.docxUrl, docxPath);
    expect(size).toBeGreaterThan(1000);
    expect((await readFile(docxPath)).subarray(0, 2).toString()).toBe("PK");

    const resultRequests = emulator.stats.requests.filter((r) => r.origin === "result");
    expect(resultRequests.length).toBeGreaterThanOrEqual(3); // redirect, dialog, docx
    for (const request of resultRequests) {
      expect(request.headers["x-api-key"]).toBeUndefined();
      expect(request.headers.authorization).toBeUndefined();
      expect(JSON.stringify(request.headers)).not.toContain(emulator.apiKey);
    }
  });

  it("retries the emulator's 503s and 429 with Retry-After, then succeeds", async () => {
    const waits: number[] = [];
    const patient = new NoteTakerClient({
      baseUrl: emulator.baseUrl,
      apiKey: emulator.apiKey,
      retryPolicy: fastRetryPolicy,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    emulator.knobs.faults = [
      { match: "POST /audio2dialog", status: 503, count: 1 },
      { match: "POST /audio2dialog", status: 429, count: 1, retryAfter: 1 },
    ];
    const audio = await temp.file("retry.mp3");
    await expect(patient.submitAudio({ path: audio, filename: "retry.mp3" })).resolves.toMatch(
      /\w/,
    );
    expect(waits).toHaveLength(2);
    expect(waits[1]).toBe(1000);
    expect(emulator.stats.audioSubmissions).toHaveLength(1);
  });

  it("reports a failed task's message, a bad key, and an expired DOCX link", async () => {
    emulator.knobs.failNextTasks = [{ kind: "audio", message: "The recording has no speech." }];
    const audio = await temp.file("silent.ogg");
    const failing = await client.submitAudio({ path: audio, filename: "silent.ogg" });
    expect(await pollUntilDone(() => client.getAudioTask(failing))).toEqual({
      status: "failed",
      message: "The recording has no speech.",
    });

    const wrongKey = new NoteTakerClient({ baseUrl: emulator.baseUrl, apiKey: "wrong-key" });
    await expect(wrongKey.getAudioTask(failing)).rejects.toBeInstanceOf(NoteTakerAuthError);

    emulator.knobs.expireDocxLinks = true;
    const task = await client.submitAudio({ path: audio, filename: "silent.ogg" });
    const done = await pollUntilDone(() => client.getAudioTask(task));
    if (done.status !== "completed") throw new Error("expected completion");
    const dialog = await client.fetchDialog(done.result.dialogUrl);
    const noteTask = await client.submitDialog({ dialog });
    const note = await pollUntilDone(() => client.getNoteTask(noteTask));
    if (note.status !== "completed") throw new Error("expected a note");
    await expect(
      client.downloadDocx(note.result.docxUrl, join(temp.dir, "expired.docx")),
    ).rejects.toBeInstanceOf(NoteTakerLinkExpiredError);
  });

  it("shows the service's reason when it refuses an upload", async () => {
    emulator.knobs.maxAudioBytes = 10;
    const audio = await temp.file("big.wav", Buffer.alloc(100));
    const error = await client.submitAudio({ path: audio, filename: "big.wav" }).catch((e) => e);
    expect(error).toBeInstanceOf(NoteTakerRefusedError);
    expect((error as Error).message).toMatch(/\w+/);
    expect((error as NoteTakerRefusedError).status).toBe(413);
  });
});
