import type { IncomingMessage } from "node:http";
import { extname } from "node:path";
import type { z } from "zod";
import { ApiError } from "./api-error.ts";
import type { EmulatorContext } from "./context.ts";
import { readMultipart } from "./multipart.ts";
import { AUDIO_EXTENSIONS, languageHintSchema, speakerHintsSchema } from "./schemas.ts";

const SUPPORTED = new Set<string>(AUDIO_EXTENSIONS);

/** Text fields are small; this is far above any agenda or glossary. */
export const MAX_FIELD_BYTES = 1024 * 1024;

/**
 * Handles `POST /audio2dialog` (spec 4.1): streams the audio to a temp file while hashing it,
 * validates the fields, records the submission and registers the task.
 * @returns the new task id.
 */
export async function submitAudio(ctx: EmulatorContext, req: IncomingMessage): Promise<string> {
  const limit = ctx.knobs.maxAudioBytes;
  const form = await readMultipart(req, {
    files: {
      audio: {
        store: "disk",
        maxBytes: limit,
        tooLarge: `The audio file is larger than the ${formatLimit(limit)} limit.`,
        check: (info) => checkExtension(info.filename),
        keepIn: ctx.knobs.keepAudioIn,
      },
    },
    textFields: ["speakers", "contextText", "languageHint"],
    maxFieldBytes: MAX_FIELD_BYTES,
  });

  const audio = form.files.get("audio");
  if (audio === undefined || audio.filename === undefined) {
    throw new ApiError(400, "The audio file part is missing.");
  }
  const speakersText = form.fields.get("speakers");
  const speakers =
    speakersText === undefined
      ? undefined
      : parseJson(
          speakersText,
          speakerHintsSchema,
          "speakers must be a JSON array of objects with a name and an optional gender of male, female or null.",
        );
  const languageHint = form.fields.get("languageHint");
  if (languageHint !== undefined && !languageHintSchema.safeParse(languageHint).success) {
    throw new ApiError(400, "languageHint must be an ISO 639-1 code of two lowercase letters.");
  }
  const contextText = form.fields.get("contextText");

  const task = ctx.tasks.addAudio(speakers, Date.now());
  ctx.stats.audioSubmissions.push({
    taskId: task.id,
    filename: audio.filename,
    contentType: audio.contentType,
    bytes: audio.bytes,
    sha256: audio.sha256,
    speakers,
    contextText,
    languageHint,
    ...(audio.keptPath === undefined ? {} : { keptPath: audio.keptPath }),
  });
  return task.id;
}

/** Spec 4.1 formats, judged by the file name extension. */
function checkExtension(filename: string | undefined): ApiError | undefined {
  const extension = extname(filename ?? "")
    .slice(1)
    .toLowerCase();
  if (SUPPORTED.has(extension)) return undefined;
  const shown = extension === "" ? "a file without an extension" : `".${extension}" files`;
  return new ApiError(
    415,
    `The audio format is not supported: ${shown}. Supported formats: ${AUDIO_EXTENSIONS.join(", ")}.`,
  );
}

/** Parses a JSON text field and validates it, turning any problem into a 400 with `message`. */
export function parseJson<T>(text: string, schema: z.ZodType<T>, message: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError(400, message);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ApiError(400, message);
  return parsed.data;
}

function formatLimit(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return Number.isInteger(mb) ? `${mb} MB` : `${bytes}-byte`;
}
