import { describe, expect, it, vi } from "vitest";
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
import type { TaskView } from "../../support/emulator/tasks.ts";

const emulator = useEmulator();

const DIALOG: DialogEntry[] = [
  { speaker_id: "speaker_1", start_seconds: 0, end_seconds: 4, text: "Let's start." },
  { speaker_id: "speaker_2", start_seconds: 5, end_seconds: 9, text: "Budget first." },
];

/** Runs a note task to completion and returns its result. */
async function finishedNote(): Promise<Record<string, string>> {
  const noteId = await submit(emulator, "/dialog2meeting", dialogForm(DIALOG));
  return last(await pollUntilDone(emulator, "/dialog2meeting", noteId)).result ?? {};
}

describe("faults", () => {
  it("answers 503 for the next two matching requests, then succeeds", async () => {
    emulator.knobs.faults.push({ match: "POST /audio2dialog", status: 503, count: 2 });
    for (let attempt = 0; attempt < 2; attempt++) {
      const answer = await callApi(emulator, "/audio2dialog", {
        method: "POST",
        body: audioForm(),
      });
      expect(answer.status).toBe(503);
      expect(answer.body.error?.message).toBeTruthy();
    }
    await submit(emulator, "/audio2dialog", audioForm());
    expect(emulator.knobs.faults).toHaveLength(0);
    expect(emulator.stats.audioSubmissions).toHaveLength(1);
  });

  it("sends Retry-After with a 429 on polls", async () => {
    const taskId = await submit(emulator, "/audio2dialog", audioForm());
    emulator.knobs.faults.push({
      match: "GET /audio2dialog",
      status: 429,
      count: 1,
      retryAfter: 3,
    });
    const limited = await callApi(emulator, `/audio2dialog/${taskId}`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("3");
    expect((await callApi(emulator, `/audio2dialog/${taskId}`)).status).toBe(200);
  });

  it("fails file downloads on the result origin too", async () => {
    const { docx_url: docxUrl = "" } = await finishedNote();
    emulator.knobs.faults.push({ match: "GET /files", status: 500, count: 1 });
    expect((await fetch(docxUrl)).status).toBe(500);
    expect((await fetch(docxUrl)).status).toBe(200);
  });

  it("completes the listed tasks at their next poll while the others keep running", async () => {
    emulator.knobs.pollsToComplete = 1000;
    const listed = await submit(emulator, "/audio2dialog", audioForm());
    const other = await submit(emulator, "/audio2dialog", audioForm());
    emulator.knobs.completeTaskIds = [listed];
    const status = async (id: string) =>
      ((await callApi(emulator, `/audio2dialog/${id}`)).body.data as TaskView).status;
    expect(await status(listed)).toBe("completed");
    expect(await status(other)).not.toBe("completed");
  });

  it("makes the next task of a kind fail with the given message", async () => {
    emulator.knobs.failNextTasks.push({ kind: "audio", message: "The audio has no speech." });
    const failedId = await submit(emulator, "/audio2dialog", audioForm());
    const failed = last(await pollUntilDone(emulator, "/audio2dialog", failedId));
    expect(failed).toMatchObject({
      status: "failed",
      error: { message: "The audio has no speech." },
    });
    expect(failed.result).toBeUndefined();
    const nextId = await submit(emulator, "/audio2dialog", audioForm());
    expect(last(await pollUntilDone(emulator, "/audio2dialog", nextId)).status).toBe("completed");
  });
});

describe("signed result links", () => {
  it("answers 410 for an expired DOCX link", async () => {
    emulator.knobs.expireDocxLinks = true;
    const { docx_url: docxUrl = "" } = await finishedNote();
    expect(Number(new URL(docxUrl).searchParams.get("expires"))).toBeLessThan(Date.now());
    expect((await fetch(docxUrl)).status).toBe(410);
  });

  it("expires a DOCX link after docxTtlMs", async () => {
    emulator.knobs.docxTtlMs = 1;
    const { docx_url: docxUrl = "" } = await finishedNote();
    // Real time on purpose: the signed link carries a wall-clock expiry 1 ms away; let it age.
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await fetch(docxUrl)).status).toBe(410);
  });

  it("answers 403 for a bad or missing signature", async () => {
    const { docx_url: docxUrl = "" } = await finishedNote();
    const forged = new URL(docxUrl);
    forged.searchParams.set("expires", String(Date.now() + 10 * 24 * 3600 * 1000));
    expect((await fetch(forged)).status).toBe(403);
    const unsigned = new URL(docxUrl);
    unsigned.search = "";
    expect((await fetch(unsigned)).status).toBe(403);
  });
});

describe("hostile and huge result links", () => {
  async function dialogUrl(): Promise<string> {
    const taskId = await submit(emulator, "/audio2dialog", audioForm());
    return last(await pollUntilDone(emulator, "/audio2dialog", taskId)).result?.dialog_url ?? "";
  }

  it("names its links by linkHost, redirect included, keeping the port", async () => {
    emulator.knobs.linkHost = "localhost";
    const port = new URL(emulator.resultOrigin).port;
    const url = await dialogUrl();
    expect(new URL(url).host).toBe(`localhost:${port}`);
    const redirect = await fetch(url.replace("localhost", "127.0.0.1"), { redirect: "manual" });
    expect(new URL(redirect.headers.get("location") ?? "").host).toBe(`localhost:${port}`);
    const { docx_url: docx = "" } = await finishedNote();
    expect(new URL(docx).host).toBe(`localhost:${port}`);
  });

  it("redirects the dialog link and hands out a DOCX link wherever it is told", async () => {
    emulator.knobs.dialogRedirectUrl = "http://169.254.169.254/latest/meta-data/";
    emulator.knobs.docxUrl = "http://127.0.0.1:9/internal/backup.docx";
    const redirect = await fetch(await dialogUrl(), { redirect: "manual" });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toBe("http://169.254.169.254/latest/meta-data/");
    expect((await finishedNote()).docx_url).toBe("http://127.0.0.1:9/internal/backup.docx");
  });

  it("streams a dialog of dialogBytes without a length, as valid JSON", async () => {
    emulator.knobs.dialogBytes = 300_000;
    const response = await fetch(await dialogUrl());
    expect(response.headers.get("content-length")).toBeNull();
    const text = await response.text();
    expect(Buffer.byteLength(text)).toBeGreaterThanOrEqual(300_000);
    const dialog = JSON.parse(text) as DialogEntry[];
    expect(dialog.length).toBeGreaterThan(1000);
    expect(dialog[1]?.text).toMatch(/^Đoạn 1: chúng ta/);
  });

  it("clears optional knobs with null over HTTP", async () => {
    const origin = new URL(emulator.baseUrl).origin;
    const post = (body: unknown) =>
      fetch(`${origin}/_emulator/knobs`, { method: "POST", body: JSON.stringify(body) });
    expect((await post({ linkHost: "localhost", dialogBytes: 1000 })).status).toBe(200);
    expect(emulator.knobs).toMatchObject({ linkHost: "localhost", dialogBytes: 1000 });
    expect((await post({ linkHost: null, dialogBytes: null })).status).toBe(200);
    expect(emulator.knobs).not.toHaveProperty("linkHost");
    expect(emulator.knobs).not.toHaveProperty("dialogBytes");
    expect((await post({ docxUrl: "not a url" })).status).toBe(400);
  });
});

describe("task knobs", () => {
  /** Polls a fresh audio task twice with `pollsToComplete` 3 and returns the running view. */
  async function runningView(): Promise<TaskView> {
    emulator.knobs.pollsToComplete = 3;
    const taskId = await submit(emulator, "/audio2dialog", audioForm());
    await callApi(emulator, `/audio2dialog/${taskId}`);
    return (await callApi<TaskView>(emulator, `/audio2dialog/${taskId}`)).body.data;
  }

  it("reports progress in each configured form", async () => {
    const expected = { fraction: 0.67, percent: 67, string: "67%", null: null } as const;
    for (const [form, value] of Object.entries(expected)) {
      emulator.knobs.progressForm = form as keyof typeof expected;
      expect((await runningView()).progress).toEqual(value);
    }
    emulator.knobs.progressForm = "absent";
    expect(await runningView()).not.toHaveProperty("progress");
  });

  it("walks through extra statuses and waits for the audio duration", async () => {
    emulator.knobs.extraStatuses = ["uploading", "diarizing"];
    emulator.knobs.audioDurationMs = 40;
    // Only Date is faked: the emulator reads the clock with Date.now(), and a loaded machine
    // must not let 40 ms of real time pass between the four polls.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const taskId = await submit(emulator, "/audio2dialog", audioForm());
      const early = [];
      for (let poll = 0; poll < 4; poll++) {
        early.push((await callApi<TaskView>(emulator, `/audio2dialog/${taskId}`)).body.data.status);
      }
      expect(early).toEqual(["queued", "uploading", "diarizing", "processing"]);
      vi.setSystemTime(Date.now() + 45);
      expect(last(await pollUntilDone(emulator, "/audio2dialog", taskId)).status).toBe("completed");
    } finally {
      vi.useRealTimers();
    }
  });

  it("shapes the dialog: speaker count, segments, injected text, raw body", async () => {
    Object.assign(emulator.knobs, { speakerCount: 3, segmentsPerSpeaker: 2 });
    emulator.knobs.dialogText = "<!channel> please read";
    const taskId = await submit(emulator, "/audio2dialog", audioForm());
    const dialogUrl = last(await pollUntilDone(emulator, "/audio2dialog", taskId)).result
      ?.dialog_url;
    const dialog = (await (await fetch(dialogUrl ?? "")).json()) as DialogEntry[];
    expect(dialog).toHaveLength(6);
    expect(dialog[0]?.text).toBe("<!channel> please read");
    expect(dialog.map((entry) => entry.speaker_id)).toContain("speaker_3");
    const starts = dialog.map((entry) => entry.start_seconds);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));

    emulator.knobs.dialogBody = "[{broken";
    expect(await (await fetch(dialogUrl ?? "")).text()).toBe("[{broken");
  });

  it("pads the note to noteMinChars and keeps the DOCX valid", async () => {
    emulator.knobs.noteMinChars = 30_000;
    const { markdown = "", docx_url: docxUrl = "" } = await finishedNote();
    expect(markdown.length).toBeGreaterThanOrEqual(30_000);
    expect(markdown).toContain("## Topic 1\n");
    expect(markdown.indexOf("## Topic 1")).toBeLessThan(markdown.indexOf("## Decisions"));
    const bytes = Buffer.from(await (await fetch(docxUrl)).arrayBuffer());
    expect(bytes.subarray(0, 4)).toEqual(Buffer.from("PK\x03\x04", "latin1"));
  });

  it("delays API answers by latencyMs", async () => {
    emulator.knobs.latencyMs = 30;
    const started = performance.now();
    await callApi(emulator, `/audio2dialog/${crypto.randomUUID()}`);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });
});

describe("control routes", () => {
  it("sets knobs, reads stats and resets over HTTP without a key", async () => {
    const origin = new URL(emulator.baseUrl).origin;
    const set = await fetch(`${origin}/_emulator/knobs`, {
      method: "POST",
      body: JSON.stringify({ pollsToComplete: 1, dialogText: "hello" }),
    });
    expect(set.status).toBe(200);
    expect(emulator.knobs).toMatchObject({ pollsToComplete: 1, dialogText: "hello" });
    for (const bad of [{ progressForm: "dots" }, { pollsToCompleat: 1 }]) {
      const invalid = await fetch(`${origin}/_emulator/knobs`, {
        method: "POST",
        body: JSON.stringify(bad),
      });
      expect(invalid.status).toBe(400);
    }

    await submit(emulator, "/audio2dialog", audioForm());
    const stats = (await (await fetch(`${origin}/_emulator/stats`)).json()) as {
      audioSubmissions: unknown[];
    };
    expect(stats.audioSubmissions).toHaveLength(1);

    expect((await fetch(`${origin}/_emulator/reset`, { method: "POST" })).status).toBe(200);
    expect(emulator.stats.audioSubmissions).toHaveLength(0);
    expect(emulator.knobs.pollsToComplete).toBe(2);
    expect(emulator.knobs).not.toHaveProperty("dialogText");
  });
});
