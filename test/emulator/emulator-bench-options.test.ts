import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmulator, type Emulator } from "../../support/emulator/create-emulator.ts";
import {
  audioForm,
  callApi,
  dialogForm,
  last,
  pollUntilDone,
  submit,
} from "../../support/emulator/emulator-client.ts";
import type { DialogEntry } from "../../support/emulator/schemas.ts";

/** The options the fleet benchmark starts the emulator with (`support/bench/fleet.ts`). */
let emulator: Emulator;
let control: string;

beforeAll(async () => {
  emulator = await createEmulator({ pollLog: true, reuseDocx: true });
  control = `${new URL(emulator.baseUrl).origin}/_emulator`;
});
afterAll(async () => {
  await emulator.close();
});

const DIALOG: DialogEntry[] = [
  { speaker_id: "speaker_1", start_seconds: 0, end_seconds: 4, text: "Let's start." },
];

async function polls(since?: number): Promise<Record<string, number[]>> {
  const query = since === undefined ? "" : `?since=${since}`;
  const answer = await fetch(`${control}/polls${query}`);
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { polls: Record<string, number[]> }).polls;
}

describe("poll log", () => {
  it("lists each poll's task id and time, from `since` on", async () => {
    const before = Date.now();
    const id = await submit(emulator, "/audio2dialog", audioForm());
    await callApi(emulator, `/audio2dialog/${id}`);
    const between = Date.now() + 1;
    // Real time on purpose: the poll log keeps wall-clock times, so the second poll must be
    // made a few milliseconds after `between` to be listed from it.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await callApi(emulator, `/audio2dialog/${id}`);
    const all = await polls();
    expect(all[id]).toHaveLength(2);
    expect(all[id]?.[0]).toBeGreaterThanOrEqual(before);
    expect(await polls(between)).toEqual({ [id]: [all[id]?.[1]] });
  });

  it("is emptied by a reset, and is off unless asked for", async () => {
    await fetch(`${control}/reset`, { method: "POST" });
    expect(await polls()).toEqual({});
    const plain = await createEmulator();
    try {
      const answer = await fetch(`${new URL(plain.baseUrl).origin}/_emulator/polls`);
      expect(answer.status).toBe(409);
    } finally {
      await plain.close();
    }
  });
});

describe("reuseDocx", () => {
  it("hands out the same DOCX bytes for the same note", async () => {
    const docx = async () => {
      const id = await submit(emulator, "/dialog2meeting", dialogForm(DIALOG));
      const url = last(await pollUntilDone(emulator, "/dialog2meeting", id)).result?.docx_url;
      return Buffer.from(await (await fetch(url ?? "")).arrayBuffer());
    };
    const first = await docx();
    expect(first.subarray(0, 2).toString()).toBe("PK");
    expect((await docx()).equals(first)).toBe(true);
  });
});
