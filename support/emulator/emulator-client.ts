import { perFile } from "../helpers/per-file.ts";
import { createEmulator, type Emulator } from "./create-emulator.ts";
import type { TaskView } from "./tasks.ts";

/** A parsed answer of the emulator: status, headers and the JSON envelope. */
export interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  body: { ok: boolean; data: T; error?: { message: string } };
}

/** One emulator for the calling file's tests, reset before each. */
export function useEmulator(): Emulator {
  return perFile("the emulator", {
    start: () => createEmulator(),
    stop: (emulator) => emulator.close(),
    reset: (emulator) => emulator.reset(),
  });
}

/** Test helper: a small audio upload as `FormData`, with optional extra text fields. */
export function audioForm(
  fields: Record<string, string> = {},
  filename = "meeting.mp3",
  bytes: Uint8Array = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]),
): FormData {
  const form = new FormData();
  form.append("audio", new Blob([bytes], { type: "audio/mpeg" }), filename);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}

/** Test helper: a dialog upload as `FormData`, with optional extra text fields. */
export function dialogForm(
  dialog: unknown,
  fields: Record<string, string> = {},
  type = "application/json",
): FormData {
  const form = new FormData();
  form.append("dialog", new Blob([JSON.stringify(dialog)], { type }), "dialog.json");
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}

/** Test helper: calls an API endpoint (path relative to `baseUrl`) with the emulator's key. */
export async function callApi<T = unknown>(
  emulator: Emulator,
  path: string,
  init: RequestInit & { apiKey?: string | null } = {},
): Promise<Answer<T>> {
  const { apiKey = emulator.apiKey, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (apiKey !== null) headers.set("x-api-key", apiKey);
  const response = await fetch(`${emulator.baseUrl}${path}`, { ...rest, headers });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Answer<T>["body"],
  };
}

/** Test helper: submits a form and returns the task id, failing loudly on anything but 202. */
export async function submit(
  emulator: Emulator,
  endpoint: "/audio2dialog" | "/dialog2meeting",
  form: FormData,
): Promise<string> {
  const answer = await callApi<{ task_id: string }>(emulator, endpoint, {
    method: "POST",
    body: form,
  });
  if (answer.status !== 202) throw new Error(`submit answered ${answer.status}`);
  return answer.body.data.task_id;
}

/** Test helper: polls until `completed` or `failed`, returning every poll answer's data. */
export async function pollUntilDone(
  emulator: Emulator,
  endpoint: "/audio2dialog" | "/dialog2meeting",
  taskId: string,
  maxPolls = 20,
): Promise<TaskView[]> {
  const seen: TaskView[] = [];
  for (let poll = 0; poll < maxPolls; poll++) {
    const answer = await callApi<TaskView>(emulator, `${endpoint}/${taskId}`);
    if (answer.status !== 200) throw new Error(`poll answered ${answer.status}`);
    seen.push(answer.body.data);
    if (answer.body.data.status === "completed" || answer.body.data.status === "failed") {
      return seen;
    }
  }
  throw new Error(`task ${taskId} did not finish in ${maxPolls} polls`);
}

/** Test helper: the final poll data of a finished task. */
export function last(views: readonly TaskView[]): TaskView {
  const view = views.at(-1);
  if (view === undefined) throw new Error("no polls");
  return view;
}
