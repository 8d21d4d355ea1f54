import { z } from "zod";

/** The spec's audio size limit: 300 MB, read as binary megabytes. */
export const MAX_AUDIO_BYTES = 300 * 1024 * 1024;

/** The spec's validity of a `docx_url`: 24 hours after the task completes. */
export const DOCX_TTL_MS = 24 * 60 * 60 * 1000;

/** Request kinds a fault can target; `*` matches every request on both origins. */
export const FAULT_MATCHES = [
  "POST /audio2dialog",
  "GET /audio2dialog",
  "POST /dialog2meeting",
  "GET /dialog2meeting",
  "GET /files",
  "*",
] as const;

export const PROGRESS_FORMS = ["fraction", "percent", "string", "null", "absent"] as const;

const count = z.number().int().min(0);

const faultSchema = z.object({
  match: z.enum(FAULT_MATCHES),
  status: z.number().int().min(400).max(599),
  count: z.number().int().min(1),
  /** Seconds, sent as `Retry-After`. */
  retryAfter: z.number().int().min(0).optional(),
  message: z.string().optional(),
});

const failNextTaskSchema = z.object({
  kind: z.enum(["audio", "note"]),
  message: z.string().min(1),
});

// The spec's terminal states cannot be used as intermediate ones.
const intermediateStatus = z
  .string()
  .min(1)
  .refine((status) => status !== "completed" && status !== "failed", {
    error: "an intermediate status cannot be completed or failed",
  });

/** The full knob set, also the source of the `Knobs` type. Strict, so a typo is refused. */
export const knobsSchema = z.strictObject({
  /** A task completes only once it has been polled this many times… */
  pollsToComplete: count,
  /** …and this much time has passed since an audio task was submitted. */
  audioDurationMs: count,
  /** …and this much time has passed since a note task was submitted. */
  noteDurationMs: count,
  /** Statuses shown between `queued` and `processing`, e.g. `["uploading", "diarizing"]`. */
  extraStatuses: z.array(intermediateStatus),
  /** The shape of `progress` on running audio tasks (the spec leaves it open). */
  progressForm: z.enum(PROGRESS_FORMS),
  speakerCount: z.number().int().min(1).max(50),
  segmentsPerSpeaker: z.number().int().min(1).max(1000),
  /** Text of the first dialog segment (tests inject Slack control sequences with it). */
  dialogText: z.string().optional(),
  /** Raw body served at the dialog file URL instead of the generated dialog. */
  dialogBody: z.string().optional(),
  /**
   * Serve a generated dialog of at least this many bytes at the dialog file URL, streamed
   * without a length (never built in memory), instead of the task's dialog.
   */
  dialogBytes: z.number().int().min(2).optional(),
  /**
   * Host name put in the result links (`dialog_url`, its redirect, `docx_url`) in place of
   * the result origin's address, port kept: e.g. `localhost`, which an app may allowlist.
   */
  linkHost: z.string().min(1).optional(),
  /** Where the `dialog_url` redirect points instead of the signed file (a hostile service). */
  dialogRedirectUrl: z.url().optional(),
  /** The `docx_url` handed out verbatim instead of the signed link (a hostile service). */
  docxUrl: z.url().optional(),
  /** Label segments with the names of the `speakers` hints instead of `speaker_N`. */
  labelWithHintNames: z.boolean(),
  /** Pad the note with `## Topic N` sections until the Markdown has at least this many characters. */
  noteMinChars: count,
  docxTtlMs: count,
  /** Hand out docx links that have already expired, and refuse every docx download with 410. */
  expireDocxLinks: z.boolean(),
  /**
   * Tasks (by id) that complete at their next poll whatever `pollsToComplete` and the
   * durations say: a benchmark finishes a few tasks while the rest keep running.
   */
  completeTaskIds: z.array(z.string()),
  /** Each entry makes the next submitted task of its kind fail (used once). */
  failNextTasks: z.array(failNextTaskSchema),
  /** Each entry answers the next `count` matching requests with `status` (used up). */
  faults: z.array(faultSchema),
  /** Delay before every API answer. */
  latencyMs: count,
  /** Size limit of the audio part; lower it to test the 413 without a 300 MB upload. */
  maxAudioBytes: z.number().int().min(1),
  /** Keep each uploaded recording in this folder (`keptPath` in the stats) to look at it. */
  keepAudioIn: z.string().min(1).optional(),
});

export type Knobs = z.infer<typeof knobsSchema>;
export type Fault = z.infer<typeof faultSchema>;
export type FaultMatch = (typeof FAULT_MATCHES)[number];
export type FailNextTask = z.infer<typeof failNextTaskSchema>;
export type ProgressForm = (typeof PROGRESS_FORMS)[number];

/** The knobs that may be unset; a patch clears them with `null`. */
const OPTIONAL_KNOBS = [
  "keepAudioIn",
  "dialogText",
  "dialogBody",
  "dialogBytes",
  "linkHost",
  "dialogRedirectUrl",
  "docxUrl",
] as const;

/**
 * What `POST /_emulator/knobs` accepts: any subset of the knobs; `null` clears an optional
 * knob (JSON has no `undefined`).
 */
export const knobsPatchSchema = knobsSchema.partial().extend({
  dialogText: knobsSchema.shape.dialogText.nullable(),
  keepAudioIn: knobsSchema.shape.keepAudioIn.nullable(),
  dialogBody: knobsSchema.shape.dialogBody.nullable(),
  dialogBytes: knobsSchema.shape.dialogBytes.nullable(),
  linkHost: knobsSchema.shape.linkHost.nullable(),
  dialogRedirectUrl: knobsSchema.shape.dialogRedirectUrl.nullable(),
  docxUrl: knobsSchema.shape.docxUrl.nullable(),
});

export type KnobsPatch = z.infer<typeof knobsPatchSchema>;

/** Returns a fresh knob set with the defaults: a spec-conforming, fast, fault-free service. */
export function defaultKnobs(): Knobs {
  return {
    pollsToComplete: 2,
    audioDurationMs: 0,
    noteDurationMs: 0,
    extraStatuses: [],
    progressForm: "fraction",
    speakerCount: 2,
    segmentsPerSpeaker: 3,
    labelWithHintNames: false,
    noteMinChars: 0,
    docxTtlMs: DOCX_TTL_MS,
    expireDocxLinks: false,
    completeTaskIds: [],
    failNextTasks: [],
    faults: [],
    latencyMs: 0,
    maxAudioBytes: MAX_AUDIO_BYTES,
  };
}

/**
 * Applies a validated patch to `knobs` in place, so references held by tests stay live.
 * A `null` optional knob is removed.
 */
export function applyKnobsPatch(knobs: Knobs, patch: KnobsPatch): void {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null && (OPTIONAL_KNOBS as readonly string[]).includes(key)) {
      delete knobs[key as (typeof OPTIONAL_KNOBS)[number]];
    } else if (value !== undefined && value !== null) {
      Object.assign(knobs, { [key]: value });
    }
  }
}

/** Puts every knob back to its default, in place. */
export function resetKnobs(knobs: Knobs): void {
  for (const key of Object.keys(knobs)) delete (knobs as Partial<Knobs>)[key as keyof Knobs];
  Object.assign(knobs, defaultKnobs());
}
