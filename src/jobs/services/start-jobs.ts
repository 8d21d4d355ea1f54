import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { checkRecording, type StartRefusal } from "../../recordings/index.ts";
import type { Store } from "../../store/index.ts";
import type { Admission } from "../engine/admission.ts";
import type { StageObserver } from "../engine/apply-event.ts";
import type { JobRunner } from "../engine/runner.ts";
import type { Job } from "../model/job.ts";
import type { JobOptions, Origin, SourceFile } from "../model/job-parts.ts";
import { tenantOfOrigin } from "../model/tenant.ts";
import { type ChannelSettingsStore, uploadOptions } from "../persistence/channel-settings.ts";
import { channelIndex, type JobRepository, userIndex } from "../persistence/job-repository.ts";
import type { WorkspaceData } from "../persistence/workspace-data.ts";
import { StoreUnavailableError } from "../recovery/store-unavailable.ts";

/**
 * The upload itself, not the install it came through: Slack Connect
 * and org-wide installs deliver one upload with several `team_id`s.
 */
const uploadKey = (channelId: string, fileId: string) => `upload:${channelId}:${fileId}`;

export type StartResult =
  | { status: "created"; job: Job }
  | { status: "duplicate" }
  | { status: "refused"; reason: StartRefusal };

/** `claimed`: the upload's claim may still be held for this job (it could not be given back). */
export interface StartAttempt {
  jobId: string;
  claimed: boolean;
}

/** The store failed mid-start; starting again with `attempt` makes that same job, once. */
export class StartNotRecorded extends StoreUnavailableError {
  readonly attempt: StartAttempt;

  constructor(attempt: StartAttempt, cause: unknown) {
    super(cause);
    this.name = "StartNotRecorded";
    this.attempt = attempt;
  }
}

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
  onStageChange?: StageObserver | undefined;
  /**
   * An upload started before the store lost its data (and its claims):
   * `StoreResetWatch.alreadyStarted`.
   */
  alreadyStarted?: (origin: Origin, source: SourceFile) => Promise<boolean>;
}

type StartInput = { origin: Origin; source: SourceFile; options: JobOptions };

/** How jobs start, once per upload; `JobService` adds what a person asks of them. */
export class JobStarts {
  protected readonly o: Required<Omit<JobServiceOptions, "onStageChange" | "alreadyStarted">> &
    Pick<JobServiceOptions, "onStageChange" | "alreadyStarted">;

  constructor(options: JobServiceOptions) {
    this.o = {
      dedupeTtlMs: 36 * 60 * 60_000,
      regenerateCooldownMs: 60_000,
      now: Date.now,
      newId: randomUUID,
      canPrepare: false,
      ...options,
    };
  }

  get canPrepare(): boolean {
    return this.o.canPrepare;
  }

  /**
   * Starts a job for an upload unless its channel turned automatic notes off and nobody `asked`.
   * Throws {@link StartNotRecorded} when the store fails: its `attempt` as `resume` makes that
   * job, once.
   */
  async startFromUpload(
    input: { origin: Origin; source: SourceFile; text: string | undefined; asked?: boolean },
    resume?: StartAttempt,
  ): Promise<StartResult | { status: "off" }> {
    const { origin, source, text } = input;
    const settings = await this.o.settings
      .get(tenantOfOrigin(origin), origin.channelId)
      .catch((error) => {
        throw new StartNotRecorded(resume ?? { jobId: this.o.newId(), claimed: false }, error);
      });
    if (!settings.autoTranscribe && input.asked !== true) return { status: "off" };
    return this.start({ origin, source, options: uploadOptions(settings, text) }, resume);
  }

  /** `tenant`: `tenantOf(install, teamId)`, as for every key a request reads. */
  async takesUploads(tenant: string, channelId: string): Promise<boolean> {
    return (await this.o.settings.get(tenant, channelId)).autoTranscribe;
  }

  /** For anything that must happen once per Slack event however often it is delivered. */
  claimOnce(key: string): Promise<boolean> {
    return this.o.store.claim(key, this.o.dedupeTtlMs);
  }

  /** Once per upload (`channel:file`), however often and through however many installs. */
  async start(input: StartInput, resume?: StartAttempt): Promise<StartResult> {
    const { origin, source } = input;
    const key = uploadKey(origin.channelId, source.fileId);
    const jobId = resume?.jobId ?? this.o.newId();
    // Claimed before the checks, so a refusal too is said once; a refused file stays refused.
    const claimed = await this.claimOnce(key).catch((error: unknown) => {
      throw new StartNotRecorded({ jobId, claimed: resume?.claimed ?? false }, error);
    });
    // Held already by the attempt this one resumes: go on under it.
    if (!claimed && resume?.claimed !== true) return { status: "duplicate" };
    const refusal = checkRecording(source, this.o.canPrepare);
    if (refusal !== undefined) return { status: "refused", reason: refusal };
    // The claim is new, but the store may have lost it with everything else: the thread says.
    if (claimed && (await this.o.alreadyStarted?.(origin, source))) return { status: "duplicate" };
    if (resume !== undefined && (await this.#recorded(jobId, resume))) {
      return { status: "duplicate" };
    }
    return this.#create(input, key, jobId);
  }

  /**
   * The thread is opened only once the recording is claimed, so a redelivered submission or a
   * second modal makes one thread and one job.
   */
  async startInThread(
    input: { origin: Omit<Origin, "threadTs">; source: SourceFile; options: JobOptions },
    openThread: () => Promise<string>,
  ): Promise<StartResult> {
    const key = uploadKey(input.origin.channelId, input.source.fileId);
    if (!(await this.claimOnce(key))) return { status: "duplicate" };
    const release = () => this.o.store.releaseClaim(key).catch(() => undefined);
    const refusal = checkRecording(input.source, this.o.canPrepare);
    if (refusal !== undefined) {
      await release();
      return { status: "refused", reason: refusal };
    }
    const threadTs = await openThread().catch(async (error: unknown) => {
      await release();
      throw error;
    });
    const jobId = this.o.newId();
    return this.#create({ ...input, origin: { ...input.origin, threadTs } }, key, jobId);
  }

  /** The store may have failed after the record was written: then it is not made again. */
  async #recorded(jobId: string, resume: StartAttempt): Promise<boolean> {
    try {
      return (await this.o.repo.get(jobId)) !== undefined;
    } catch (error) {
      throw new StartNotRecorded(resume, error);
    }
  }

  /**
   * When the store fails, the claim is given back if it
   * can be, so a redelivered event may start the job.
   */
  async #create(input: StartInput, key: string, jobId: string): Promise<StartResult> {
    const { origin, source } = input;
    const now = this.o.now();
    const job: Job = {
      id: jobId,
      stage: "queued",
      createdAt: now,
      updatedAt: now,
      stageStartedAt: now,
      wakeAt: now,
      attempts: 0,
      origin,
      source,
      options: input.options,
    };
    try {
      // Noted first: a crash between the writes never leaves a job an uninstall would miss.
      const { workspaces } = this.o;
      const tenant = tenantOfOrigin(origin);
      await workspaces.note(tenant, "jobs", job.id);
      await workspaces.noteIndex(tenant, channelIndex(tenant, origin.channelId));
      await workspaces.noteIndex(tenant, userIndex(tenant, origin.userId));
      await this.o.repo.create(job);
    } catch (error) {
      const released = await this.o.store.releaseClaim(key).then(
        () => true,
        () => false,
      );
      throw new StartNotRecorded({ jobId, claimed: !released }, error);
    }
    this.o.logger.info({ jobId: job.id, file: source.fileId, bytes: source.size }, "job created");
    this.o.runner.kick(job.id);
    return { status: "created", job };
  }
}
