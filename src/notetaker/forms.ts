import type { FormDataLike } from "form-data-encoder";
import { safeFileName } from "../text/index.ts";
import type { RelayAudioInput, SubmitAudioInput, SubmitDialogInput } from "./client-types.ts";
import {
  checkAudio,
  checkAudioFile,
  checkDialog,
  checkLanguageHint,
  checkSpeakerHints,
  checkTemplate,
  toSpeakerMapArray,
} from "./input-rules.ts";
import { buildForm, diskFile, FilePart, memoryFile } from "./multipart.ts";

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
