import { randomUUID } from "node:crypto";
import type { SpeakerMapEntry } from "../../notetaker/index.ts";
import {
  type Job,
  type JobOptions,
  type Origin,
  type SourceFile,
  type SpeakerQuotes,
  speakerQuotesSchema,
} from "../model/job.ts";
import { tenantOfOrigin } from "../model/tenant.ts";
import { loadStored } from "../persistence/blobs.ts";
import { type ChannelSettingsStore, uploadOptions } from "../persistence/channel-settings.ts";
import { channelIndex, userIndex } from "../persistence/job-repository.ts";
import type { CommandResult, JobServiceOptions, UploadResult } from "./job-service-types.ts";
import { PersonCommands } from "./person-commands.ts";
import { JobStarts, type StartAttempt, StartNotRecorded, type StartResult } from "./start-jobs.ts";

export type {
  CommandRefusal,
  CommandResult,
  JobServiceOptions,
  UploadResult,
} from "./job-service-types.ts";
export type { StartAttempt, StartResult } from "./start-jobs.ts";
/**
 * What the Slack layer can ask of the job layer. A person's command is recorded the moment
 * it arrives and applied under the job's lease, like the runner's steps, so a click never
 * races a step in progress — and never waits for one either.
 */
export class JobService {
  readonly #o: Required<Omit<JobServiceOptions, "onStageChange" | "alreadyStarted">> &
    Pick<JobServiceOptions, "onStageChange" | "alreadyStarted">;
  readonly #settings: ChannelSettingsStore;
  readonly #starts: JobStarts;
  readonly #commands: PersonCommands;

  /** Whether recordings the Note Service would refuse as they are can be prepared (FFmpeg). */
  get canPrepare(): boolean {
    return this.#o.canPrepare;
  }

  /**
   * `store` and `repo` as `createServices` gives them: whatever the store fails at reaches
   * the Slack layer as a StoreUnavailableError.
   */
  constructor(options: JobServiceOptions) {
    this.#o = {
      dedupeTtlMs: 36 * 60 * 60_000,
      regenerateCooldownMs: 60_000,
      now: Date.now,
      newId: randomUUID,
      canPrepare: false,
      ...options,
    };
    this.#settings = options.settings;
    this.#starts = new JobStarts(this.#o);
    this.#commands = new PersonCommands(this.#o);
  }

  /**
   * Starts a job for a recording uploaded to a channel, with the channel's settings and the
   * text typed with the upload as context; nothing in a channel that turned automatic
   * notes off, unless the person `asked` for notes (the upload's message mentions the bot,
   * or was sent to it). Throws {@link StartNotRecorded} when the store fails: starting
   * again with its `attempt` as `resume` makes that job, once.
   */
  async startFromUpload(
    input: { origin: Origin; source: SourceFile; text: string | undefined; asked?: boolean },
    resume?: StartAttempt,
  ): Promise<UploadResult> {
    const { origin, source, text } = input;
    const settings = await this.#settings
      .get(tenantOfOrigin(origin), origin.channelId)
      .catch((error) => {
        throw new StartNotRecorded(resume ?? { jobId: this.#o.newId(), claimed: false }, error);
      });
    if (!settings.autoTranscribe && input.asked !== true) return { status: "off" };
    return this.start({ origin, source, options: uploadOptions(settings, text) }, resume);
  }

  /**
   * Whether uploads to the channel start jobs (it did not turn automatic notes off).
   * `tenant`, as for every key a request reads: `tenantOf(install, teamId)`.
   */
  async takesUploads(tenant: string, channelId: string): Promise<boolean> {
    return (await this.#settings.get(tenant, channelId)).autoTranscribe;
  }

  /**
   * Starts a job for a recording, once per upload (`channel:file`) however often, and
   * through however many installs, Slack delivers the event. Checks the recording against
   * the Note Service's rules first. Throws {@link StartNotRecorded} when the store fails;
   * `resume` is the attempt it gave, to make that same job.
   */
  start(
    input: { origin: Origin; source: SourceFile; options: JobOptions },
    resume?: StartAttempt,
  ): Promise<StartResult> {
    return this.#starts.start(input, resume);
  }

  /**
   * Starts a job a person asked for in a modal, in a thread opened (`openThread` posts its
   * first message and gives its ts) only once the recording is claimed for the destination,
   * as {@link start} claims an upload: however often the request comes (Slack delivering a
   * submission again, two modals for one recording), one thread and one job. A refusal, or
   * a thread that cannot be opened, gives the claim back: nothing started, and the person
   * may ask again. A job the store failed to record once the thread was open throws
   * {@link StartNotRecorded}: {@link start} with the thread and its `attempt` makes it.
   */
  startInThread(
    input: { origin: Omit<Origin, "threadTs">; source: SourceFile; options: JobOptions },
    openThread: () => Promise<string>,
  ): Promise<StartResult> {
    return this.#starts.startInThread(input, openThread);
  }

  /**
   * True the first time `key` is claimed within the dedupe period: for anything that must
   * happen once per Slack event however often it is delivered (a reply about a file that
   * is not a recording, say).
   */
  claimOnce(key: string): Promise<boolean> {
    return this.#starts.claimOnce(key);
  }

  get(jobId: string): Promise<Job | undefined> {
    return this.#o.repo.get(jobId);
  }

  /** The speakers' names are known: write the note. */
  submitNames(
    jobId: string,
    speakerMap: SpeakerMapEntry[],
    changes: { contextText?: string; templateId?: string; members?: Record<string, string> } = {},
  ): Promise<CommandResult> {
    return this.#commands.apply(jobId, { type: "names_given", speakerMap, ...changes });
  }

  /** Write the note with the labels the service gave. */
  skipNaming(jobId: string): Promise<CommandResult> {
    return this.#commands.apply(jobId, { type: "naming_skipped" });
  }

  retry(jobId: string): Promise<CommandResult> {
    return this.#commands.apply(jobId, { type: "retried" });
  }

  /**
   * Reruns only the note step, with new names, context or template when given — once per
   * cooldown: each Regenerate is a new note task at the Note Service.
   */
  async regenerate(
    jobId: string,
    changes: {
      speakerMap?: SpeakerMapEntry[];
      members?: Record<string, string>;
      contextText?: string;
      templateId?: string;
    },
  ): Promise<CommandResult> {
    const job = await this.#o.repo.get(jobId);
    const waitMs = job === undefined ? 0 : this.regenerateWaitMs(job);
    if (waitMs > 0) return { ok: false, reason: "cooldown", retryInMs: waitMs };
    return this.#commands.apply(jobId, { type: "regenerate", ...changes });
  }

  /**
   * Review before posting: the note waiting, in full, for its review goes to the thread
   * (`by` posted it) — once, however often it is asked: the job has left the stage then.
   */
  postReviewed(jobId: string, by: string): Promise<CommandResult> {
    return this.#commands.apply(jobId, { type: "review_posted", by });
  }

  /** Review before posting: the note is discarded, and the job ends without it. */
  discardReview(jobId: string, by: string): Promise<CommandResult> {
    return this.#commands.apply(jobId, { type: "review_discarded", by });
  }

  /**
   * The quotes the speaker modal shows for each speaker of a job (none where it has no
   * speakers, or their blob is gone: the modal still opens, without quotes).
   */
  async quotesOf(job: Job): Promise<SpeakerQuotes> {
    const stored =
      job.stage === "naming" ? job.quotes : "note" in job ? job.note.quotes : undefined;
    if (stored === undefined) return {};
    try {
      return await loadStored(this.#o.store, stored, speakerQuotesSchema);
    } catch (error) {
      this.#o.logger.warn({ jobId: job.id, err: error }, "speaker quotes unreadable");
      return {};
    }
  }

  /** How long until the job's notes may be regenerated again (0: now). */
  regenerateWaitMs(job: Job): number {
    if (job.regeneratedAt === undefined) return 0;
    return Math.max(0, job.regeneratedAt + this.#o.regenerateCooldownMs - this.#o.now());
  }

  /**
   * Cancels a job: at once when no step holds it, else the step holding it (a long upload,
   * say) stops at once in this process, at its next checkpoint on another replica.
   */
  cancel(jobId: string, by: string): Promise<CommandResult> {
    return this.#commands.apply(jobId, { type: "canceled", by });
  }

  listByChannel(tenant: string, channelId: string): Promise<Job[]> {
    return this.#o.repo.listIndex(channelIndex(tenant, channelId));
  }

  listByUser(tenant: string, userId: string): Promise<Job[]> {
    return this.#o.repo.listIndex(userIndex(tenant, userId));
  }
}
