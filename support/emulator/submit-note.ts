import type { IncomingMessage } from "node:http";
import { ApiError } from "./api-error.ts";
import type { EmulatorContext } from "./context.ts";
import { readMultipart } from "./multipart.ts";
import type { NoteInput } from "./note-markdown.ts";
import { dialogSchema, speakerMapSchema } from "./schemas.ts";
import type { NoteSubmission } from "./stats.ts";
import { MAX_FIELD_BYTES, parseJson } from "./submit-audio.ts";

/** The spec gives no limits for these; generous values keep a runaway client visible. */
const MAX_DIALOG_BYTES = 20 * 1024 * 1024;
const MAX_TEMPLATE_BYTES = 50 * 1024 * 1024;

/** Every DOCX is a zip file, and every zip file starts with this local-header signature. */
const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/**
 * Handles `POST /dialog2meeting` (spec 4.3): the dialog JSON file part, an optional DOCX
 * template, the speaker map (array or legacy object form) and context text.
 * @returns the new task id.
 */
export async function submitNote(ctx: EmulatorContext, req: IncomingMessage): Promise<string> {
  const form = await readMultipart(req, {
    files: {
      dialog: {
        store: "memory",
        maxBytes: MAX_DIALOG_BYTES,
        tooLarge: "The dialog file is larger than 20 MB.",
        check: (info) =>
          info.mimeType.toLowerCase() === "application/json"
            ? undefined
            : new ApiError(
                415,
                `The dialog part must be sent with content type application/json, not ${info.mimeType}.`,
              ),
      },
      template: {
        store: "memory",
        maxBytes: MAX_TEMPLATE_BYTES,
        tooLarge: "The template file is larger than 50 MB.",
      },
    },
    textFields: ["speakerMap", "contextText"],
    maxFieldBytes: MAX_FIELD_BYTES,
  });

  if (form.fields.has("dialog")) {
    throw new ApiError(400, "The dialog must be uploaded as a file part, not a text field.");
  }
  const dialogFile = form.files.get("dialog");
  if (dialogFile?.buffer === undefined) throw new ApiError(400, "The dialog file part is missing.");
  const dialog = parseJson(
    dialogFile.buffer.toString("utf8"),
    dialogSchema,
    "The dialog file must hold a JSON array of entries with speaker_id, start_seconds, end_seconds and text.",
  );

  const template = form.files.get("template");
  if (template?.buffer !== undefined && !startsWithZipSignature(template.buffer)) {
    throw new ApiError(415, "The template must be a DOCX file.");
  }

  const speakerMapText = form.fields.get("speakerMap");
  const speakerMap =
    speakerMapText === undefined
      ? undefined
      : parseJson(
          speakerMapText,
          speakerMapSchema,
          "speakerMap must be a JSON array of objects with speaker_id, name and an optional gender of male, female or null, or an object mapping speaker ids to names.",
        );
  const contextText = form.fields.get("contextText");

  const input: NoteInput = { dialog, speakerMap, contextText };
  const submission: Omit<NoteSubmission, "taskId"> = { dialog, speakerMap, contextText };
  if (template !== undefined) {
    input.templateBytes = template.bytes;
    submission.templateBytes = template.bytes;
  }
  const task = ctx.tasks.addNote(input, Date.now());
  ctx.stats.noteSubmissions.push({ taskId: task.id, ...submission });
  return task.id;
}

function startsWithZipSignature(bytes: Buffer): boolean {
  return bytes.subarray(0, ZIP_SIGNATURE.length).equals(ZIP_SIGNATURE);
}
