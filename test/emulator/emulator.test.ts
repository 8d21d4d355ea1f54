import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  audioForm,
  callApi,
  dialogForm,
  last,
  pollUntilDone,
  submit,
  useEmulator,
} from "../../support/emulator/emulator-client.ts";
import type { DialogEntry } from "../../support/emulator/schemas.ts";

const emulator = useEmulator();

/** Runs an audio task to completion and downloads its dialog. */
async function transcribe(fields: Record<string, string> = {}): Promise<DialogEntry[]> {
  const taskId = await submit(emulator, "/audio2dialog", audioForm(fields));
  const done = last(await pollUntilDone(emulator, "/audio2dialog", taskId));
  const response = await fetch(done.result?.dialog_url ?? "");
  return (await response.json()) as DialogEntry[];
}

describe("authentication", () => {
  it("answers 401 without a key or with a wrong one", async () => {
    for (const apiKey of [null, "wrong-key"]) {
      const answer = await callApi(emulator, "/audio2dialog", {
        method: "POST",
        body: audioForm(),
        apiKey,
      });
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ ok: false, error: { message: "Invalid API key" } });
    }
    expect(emulator.stats.audioSubmissions).toHaveLength(0);
  });
});

describe("the whole walk", () => {
  it("goes from audio to dialog to a note with names and a DOCX", async () => {
    emulator.knobs.pollsToComplete = 3;
    const audio = new Uint8Array([9, 8, 7, 6, 5]);
    const audioId = await submit(
      emulator,
      "/audio2dialog",
      audioForm({ languageHint: "vi", contextText: "Weekly sync" }, "standup.m4a", audio),
    );
    expect(audioId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    const polls = await pollUntilDone(emulator, "/audio2dialog", audioId);
    expect(polls.map((view) => view.status)).toEqual(["queued", "processing", "completed"]);
    expect(polls[1]?.progress).toBeGreaterThan(0);
    expect(polls[1]?.progress).toBeLessThan(1);
    const dialogUrl = last(polls).result?.dialog_url ?? "";
    expect(dialogUrl.startsWith(`${emulator.resultOrigin}/r/dialog/`)).toBe(true);

    const manual = await fetch(dialogUrl, { redirect: "manual" });
    expect(manual.status).toBe(302);
    const response = await fetch(dialogUrl);
    expect(response.redirected).toBe(true);
    expect(response.headers.get("content-type")).toBe("application/json");
    const dialog = (await response.json()) as DialogEntry[];
    expect(dialog).toHaveLength(6);
    expect(dialog.map((entry) => entry.speaker_id)).toContain("speaker_2");

    const speakerMap = JSON.stringify([
      { speaker_id: "speaker_1", name: "Alice", gender: "female" },
      { speaker_id: "speaker_2", name: "Bob" },
    ]);
    const noteId = await submit(emulator, "/dialog2meeting", dialogForm(dialog, { speakerMap }));
    const note = last(await pollUntilDone(emulator, "/dialog2meeting", noteId));
    expect(note.status).toBe("completed");
    const markdown = note.result?.markdown ?? "";
    expect(markdown).toMatch(/^# Meeting notes/);
    expect(markdown).toContain("- Alice\n- Bob");
    expect(markdown).toContain("**Bob** (00:07):");
    for (const heading of ["## Attendees", "## Discussion", "## Decisions", "## Action items"]) {
      expect(markdown).toContain(heading);
    }

    const docx = await fetch(note.result?.docx_url ?? "");
    expect(docx.status).toBe(200);
    const bytes = Buffer.from(await docx.arrayBuffer());
    expect(bytes.subarray(0, 2).toString()).toBe("PK");

    const [submission] = emulator.stats.audioSubmissions;
    expect(submission).toMatchObject({
      filename: "standup.m4a",
      bytes: audio.length,
      sha256: createHash("sha256").update(audio).digest("hex"),
      languageHint: "vi",
      contextText: "Weekly sync",
    });
    expect(emulator.stats.noteSubmissions[0]?.speakerMap).toEqual(JSON.parse(speakerMap));
    expect(emulator.stats.polls).toEqual({ audio: 3, note: 3 });

    const resultRequests = emulator.stats.requests.filter((entry) => entry.origin === "result");
    expect(resultRequests.length).toBeGreaterThanOrEqual(4);
    for (const entry of resultRequests) {
      expect(entry.headers).not.toHaveProperty("x-api-key");
      expect(entry.headers).not.toHaveProperty("authorization");
    }
    expect(emulator.stats.requests.some((entry) => entry.headers["x-api-key"])).toBe(true);
  });

  it("accepts the legacy speaker map and mentions an uploaded template", async () => {
    const dialog = await transcribe();
    const form = dialogForm(dialog, { speakerMap: '{"speaker_1":"Chi","speaker_2":"Dung"}' });
    form.append("template", new Blob([Buffer.from("PK\x03\x04rest-of-zip")]), "template.docx");
    const noteId = await submit(emulator, "/dialog2meeting", form);
    const markdown = last(await pollUntilDone(emulator, "/dialog2meeting", noteId)).result
      ?.markdown;
    expect(markdown).toContain("**Chi** (00:00):");
    expect(markdown).toContain("- Dung");
    expect(markdown).toContain("uploaded template (15 bytes)");
    expect(emulator.stats.noteSubmissions[0]).toMatchObject({
      speakerMap: { speaker_1: "Chi", speaker_2: "Dung" },
      templateBytes: 15,
    });
  });

  it("labels speakers with hint names when asked to", async () => {
    emulator.knobs.labelWithHintNames = true;
    const speakers = JSON.stringify([{ name: "Lan", gender: "female" }, { name: "Minh" }]);
    const dialog = await transcribe({ speakers });
    expect([...new Set(dialog.map((entry) => entry.speaker_id))]).toEqual(["Lan", "Minh"]);
    expect(emulator.stats.audioSubmissions[0]?.speakers).toEqual(JSON.parse(speakers));
  });
});

describe("refused requests", () => {
  const refused = async (path: string, form: FormData, status: number): Promise<string> => {
    const answer = await callApi(emulator, path, { method: "POST", body: form });
    expect(answer.status).toBe(status);
    expect(answer.body.ok).toBe(false);
    return answer.body.error?.message ?? "";
  };

  it("answers 415 for an unsupported audio extension", async () => {
    const message = await refused("/audio2dialog", audioForm({}, "notes.txt"), 415);
    expect(message).toContain('".txt"');
  });

  it("answers 400 for a bad language code, gender or speakers JSON, or a missing part", async () => {
    for (const languageHint of ["EN", "eng", "e1"]) {
      await refused("/audio2dialog", audioForm({ languageHint }), 400);
    }
    await refused("/audio2dialog", audioForm({ speakers: '[{"name":"A","gender":"x"}]' }), 400);
    await refused("/audio2dialog", audioForm({ speakers: "[{" }), 400);
    const noAudio = new FormData();
    noAudio.append("contextText", "hello");
    expect(await refused("/audio2dialog", noAudio, 400)).toContain("audio");
    expect(emulator.stats.audioSubmissions).toHaveLength(0);
  });

  it("answers 413 once the audio crosses the size limit", async () => {
    emulator.knobs.maxAudioBytes = 1024;
    await refused("/audio2dialog", audioForm({}, "big.mp3", new Uint8Array(4096)), 413);
    await submit(emulator, "/audio2dialog", audioForm({}, "fits.mp3", new Uint8Array(1024)));
  });

  it("checks the dialog part, the template and the speaker map", async () => {
    const dialog = [{ speaker_id: "speaker_1", start_seconds: 0, end_seconds: 1, text: "Hi" }];
    await refused("/dialog2meeting", dialogForm(dialog, {}, "text/plain"), 415);
    await refused("/dialog2meeting", dialogForm({ not: "an array" }), 400);
    await refused("/dialog2meeting", dialogForm([{ speaker_id: 1 }]), 400);
    await refused("/dialog2meeting", dialogForm(dialog, { speakerMap: "[{}]" }), 400);
    const badGender = '[{"speaker_id":"speaker_1","name":"A","gender":"other"}]';
    await refused("/dialog2meeting", dialogForm(dialog, { speakerMap: badGender }), 400);
    const withTemplate = dialogForm(dialog);
    withTemplate.append("template", new Blob(["not a zip"]), "template.docx");
    await refused("/dialog2meeting", withTemplate, 415);
    const asText = new FormData();
    asText.append("dialog", JSON.stringify(dialog));
    await refused("/dialog2meeting", asText, 400);
    expect(emulator.stats.noteSubmissions).toHaveLength(0);
  });

  it("answers 415 for a body that is not multipart and 400 for a cut-off one", async () => {
    const json = await callApi(emulator, "/audio2dialog", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(json.status).toBe(415);
    const cutOff = await callApi(emulator, "/audio2dialog", {
      method: "POST",
      headers: { "content-type": "multipart/form-data; boundary=abc" },
      body: '--abc\r\nContent-Disposition: form-data; name="audio"; filename="a.mp3"\r\n\r\nxyz',
    });
    expect(cutOff.status).toBe(400);
  });

  it("answers 404 for an unknown task, also when polled on the other endpoint", async () => {
    const unknown = await callApi(emulator, `/audio2dialog/${crypto.randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.message).toMatch(/not found/);
    const audioId = await submit(emulator, "/audio2dialog", audioForm());
    expect((await callApi(emulator, `/dialog2meeting/${audioId}`)).status).toBe(404);
  });
});
