import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { SpeakerName } from "../../notetaker/index.ts";
import type { Store } from "../../store/index.ts";
import type { Admission } from "../engine/admission.ts";
import type { StageObserver } from "../engine/apply-event.ts";
import type { JobRunner } from "../engine/runner.ts";
import type { Job } from "../model/job.ts";
import {
  type JobOptions,
  type Origin,
  type SourceFile,
  type SpeakerQuotes,
  speakerQuotesSchema,
} from "../model/job-parts.ts";
import { tenantOfOrigin } from "../model/tenant.ts";
import { loadStored } from "../persistence/blobs.ts";
import { type ChannelSettingsStore, uploadOptions } from "../persistence/channel-settings.ts";
import { channelIndex, type JobRepository, userIndex } from "../persistence/job-repository.ts";
import type { WorkspaceData } from "../persistence/workspace-data.ts";
import { type CommandResult, PersonCommands } from "./person-commands.ts";
import { JobStarts, type StartAttempt, StartNotRecorded, type StartResult } from "./start-jobs.ts";

/** An upload's outcome: also `off` in a channel that turned automatic notes off. */
export type UploadResult = StartResult | { status: "off" };

export interface JobServiceOptions {
  repo: JobRepository;
  store: Store;
  admission: Admission;
  runner: Pick<JobRunner, "kick" | "abort" | "settle" | "discard">;
  logger: Logger;
  settings: ChannelSettingsStore;
  /** Noted as jobs start, for an uninstall. */
  workspaces: WorkspaceData;
  retentionMs: number;
  /** Slack retries events for minutes; a day is safe. */
  dedupeTtlMs?: number;
  regenerateCooldownMs?: number;
  now?: () => number;
  newId?: () => string;
  canPrepare?: boolean;
  onStageChange?: StageObserver;
  /**
   * An upload started before the store lost its data (and its claims):
   * `StoreResetWatch.alreadyStarted`.
   */
  alreadyStarted?: (origin: Origin, source: SourceFile) => Promise<boolean>;
}

/**
 * What the Slack layer asks of the job layer. A person's command is recorded at once and applied
 * under the job's lease, so a click never races a step, nor waits for one.
 */
export class JobService {
  readonly #o: Required<Omit<JobServiceOptions, "onStageChange" | "alreadyStarted">> &
    Pick<JobServiceOptions, "onStageChange" | "alreadyStarted">;
  readonly #settings: ChannelSettingsStore;
  readonly #starts: JobStarts;
  readonly #commands: PersonCommands;

  get canPrepare(): boolean {
    return this.#o.canPrepare;
  }

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
   * Starts a job for an upload with its channel's settings and typed text; nothing where the
   * channel turned automatic notes off, unless the person `asked`. Throws {@link StartNotRecorded}
   * when the store fails: its `attempt` as `resume` makes that job, once.
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

  /** `tenant`: `tenantOf(install, teamId)`, as for every key a request reads. */
  async takesUploads(tenant: string, channelId: string): Promise<boolean> {
    return (await this.#settings.get(tenant, channelId)).autoTranscribe;
  }

  /**
   * Once per upload (`channel:file`), however often and
   * through however many installs Slack delivers it.
   */
  start(
    input: { origin: Origin; source: SourceFile; options: JobOptions },
    resume?: StartAttempt,
  ): Promise<StartResult> {
    return this.#starts.start(input, resume);
  }

  /**
   * Starts a job in a thread opened only once the recording is claimed, so
   * a redelivered submission or a second modal makes one thread and one
   * job. A refusal or a thread that cannot be opened gives the claim back.
   */
  startInThread(
    input: { origin: Omit<Origin, "threadTs">; source: SourceFile; options: JobOptions },
    openThread: () => Promise<string>,
  ): Promise<StartResult> {
    return this.#starts.startInThread(input, openThread);
  }

  /** For anything that must happen once per Slack event however often it is delivered. */
  claimOnce(key: string): Promise<boolean> {
    return this.#starts.claimOnce(key);
  }

  get(jobId: string): Promise<Job | undefined> {
    return this.#o.repo.get(jobId);
  }

  submitNames(
    jobId: string,
    speakerMap: SpeakerName[],
    changes: { contextText?: string; templateId?: string; members?: Record<string, string> } = {},
  ): Promise<CommandResult> {
    return this.#commands.apply(jobId, { type: "names_given", speakerMap, ...changes });
  }

  skipNaming(jobId: string): Promise<CommandResult> {
    return this.#commands.apply(jobId, { type: "naming_skipped" });
  }

  retry(jobId: string): Promise<CommandResult> {
    return this.#commands.apply(jobId, { type: "retried" });
  }

  /** Once per cooldown: each Regenerate is a new note task at the Note Service. */
  async regenerate(
    jobId: string,
    changes: {
      speakerMap?: SpeakerName[];
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

  postReviewed(jobId: string, by: string): Promise<CommandResult> {
    return this.#commands.apply(jobId, { type: "review_posted", by });
  }

  discardReview(jobId: string, by: string): Promise<CommandResult> {
    return this.#commands.apply(jobId, { type: "review_discarded", by });
  }

  /** None when the blob is gone: the modal still opens, without quotes. */
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

  regenerateWaitMs(job: Job): number {
    if (job.regeneratedAt === undefined) return 0;
    return Math.max(0, job.regeneratedAt + this.#o.regenerateCooldownMs - this.#o.now());
  }

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
