import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { FormDataEncoder, type FormDataLike } from "form-data-encoder";
import { safeFileName } from "../text/index.ts";
import { optional } from "../util/optional.ts";
import {
  checkAudio,
  checkAudioFile,
  checkDialog,
  checkLanguageHint,
  checkSpeakerHints,
  checkTemplate,
  toSpeakerMapArray,
} from "./input-rules.ts";
import type { Dialog, SpeakerHint, SpeakerMapInput } from "./schemas.ts";

export interface SubmitAudioInput {
  path: string;
  filename: string;
  speakers?: readonly SpeakerHint[];
  contextText?: string;
  languageHint?: string;
}

/** A recording still arriving: `open` streams exactly `size` bytes, each time it is called. */
export interface RelayAudioInput extends Omit<SubmitAudioInput, "path"> {
  size: number;
  open: () => AsyncIterable<Uint8Array>;
}

export interface SubmitDialogInput {
  dialog: Dialog;
  speakerMap?: SpeakerMapInput;
  contextText?: string;
  template?: { filename: string; data: Uint8Array };
}

export interface MultipartBody {
  headers: Record<string, string>;
  body: Readable;
}

/**
 * A form-data-encoder file part over a Node stream, which ends cleanly when the server answers
 * before reading it all. Its name is made safe: it goes to a foreign server.
 */
export class FilePart {
  readonly name: string;
  readonly type: string;
  readonly size: number;
  readonly lastModified = Date.now();
  readonly #open: () => AsyncIterable<Uint8Array>;

  constructor(name: string, type: string, size: number, open: () => AsyncIterable<Uint8Array>) {
    this.name = safeFileName(name);
    this.type = type;
    this.size = size;
    this.#open = open;
  }

  stream(): AsyncIterable<Uint8Array> {
    return this.#open();
  }

  get [Symbol.toStringTag]() {
    return "File";
  }
}

/** Small chunks leave less memory waiting for GC on a large upload, at the same speed. */
const READ_CHUNK_BYTES = 16 * 1024;

/** A file on disk, read chunk by chunk while the request is sent. */
export async function diskFile(path: string, name: string, type = "application/octet-stream") {
  const { size } = await stat(path);
  return new FilePart(name, type, size, () =>
    createReadStream(path, { highWaterMark: READ_CHUNK_BYTES }),
  );
}

/** A small file held in memory (dialog.json, a DOCX template). */
export function memoryFile(data: Uint8Array | string, name: string, type: string): FilePart {
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  return new FilePart(name, type, bytes.byteLength, () => Readable.from([bytes]));
}

type PartValue = string | FilePart;

/** The smallest form form-data-encoder accepts: named parts in order. */
class Parts implements FormDataLike {
  readonly #entries: [string, PartValue][] = [];

  append(name: string, value: unknown): void {
    this.#entries.push([name, value as PartValue]);
  }

  getAll(name: string): PartValue[] {
    return this.#entries.filter(([key]) => key === name).map(([, value]) => value);
  }

  entries(): IterableIterator<[string, PartValue]> {
    return this.#entries[Symbol.iterator]();
  }

  [Symbol.iterator](): IterableIterator<[string, PartValue]> {
    return this.entries();
  }

  get [Symbol.toStringTag]() {
    return "FormData";
  }
}

export function buildForm(fields: Record<string, PartValue | undefined>): FormDataLike {
  const form = new Parts();
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined) form.append(name, value);
  }
  return form;
}

/** A streamed `multipart/form-data` body of known length: the recording is never in memory. */
export function encodeMultipart(form: FormDataLike): MultipartBody {
  const encoder = new FormDataEncoder(form);
  const body = Readable.from(encoder.encode());
  return {
    headers: {
      "content-type": encoder.contentType,
      ...optional("content-length", encoder.contentLength),
    },
    body,
  };
}

const DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/** Makes a submission's form afresh for each attempt, which streams its files again. */
export type FormMaker = () => Promise<FormDataLike>;

/** `POST /audio2dialog` of a recording on disk, checked against the API's rules first. */
export async function audioForm(input: SubmitAudioInput): Promise<FormMaker> {
  const filename = safeFileName(input.filename);
  await checkAudioFile(input.path, filename);
  const fields = audioFields(input);
  return async () => buildForm({ audio: await diskFile(input.path, filename), ...fields });
}

/** `POST /audio2dialog` of a recording still arriving: `open` streams its `size` bytes. */
export function relayForm(input: RelayAudioInput): FormDataLike {
  const filename = safeFileName(input.filename);
  checkAudio(filename, input.size);
  return buildForm({
    audio: new FilePart(filename, "application/octet-stream", input.size, input.open),
    ...audioFields(input),
  });
}

/** `POST /dialog2meeting`, checked first; the speaker map always goes in array form. */
export function dialogForm(input: SubmitDialogInput): FormMaker {
  const dialog = checkDialog(input.dialog);
  const speakerMap =
    input.speakerMap === undefined ? undefined : toSpeakerMapArray(input.speakerMap, dialog);
  const template = input.template === undefined ? undefined : checkTemplate(input.template);
  const dialogJson = JSON.stringify(dialog);
  return async () =>
    buildForm({
      dialog: memoryFile(dialogJson, "dialog.json", "application/json"),
      template:
        template === undefined
          ? undefined
          : memoryFile(template.data, template.filename, DOCX_TYPE),
      speakerMap:
        speakerMap === undefined || speakerMap.length === 0
          ? undefined
          : JSON.stringify(speakerMap),
      contextText: nonEmpty(input.contextText),
    });
}

function audioFields(input: Omit<SubmitAudioInput, "path" | "filename">) {
  const speakers = input.speakers === undefined ? undefined : checkSpeakerHints(input.speakers);
  return {
    speakers:
      speakers === undefined || speakers.length === 0 ? undefined : JSON.stringify(speakers),
    contextText: nonEmpty(input.contextText),
    languageHint:
      input.languageHint === undefined ? undefined : checkLanguageHint(input.languageHint),
  };
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || text.trim() === "" ? undefined : text;
}
