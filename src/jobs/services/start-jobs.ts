import type { Logger } from "pino";
import { checkRecording, type StartRefusal } from "../../recordings/index.ts";
import type { Store } from "../../store/index.ts";
import type { JobRunner } from "../engine/runner.ts";
import type { Job, JobOptions, Origin, SourceFile } from "../model/job.ts";
import { tenantOfOrigin } from "../model/tenant.ts";
import { channelIndex, type JobRepository, userIndex } from "../persistence/job-repository.ts";
import type { WorkspaceData } from "../persistence/workspace-data.ts";
import { StoreUnavailableError } from "../recovery/store-unavailable.ts";

/**
 * The claim on a recording in a conversation: the upload itself (a file in a conversation),
 * not the install it reached us through (Slack Connect and org-wide installs deliver one
 * upload with several `team_id`s).
 */
const uploadKey = (channelId: string, fileId: string) => `upload:${channelId}:${fileId}`;

export type StartResult =
  | { status: "created"; job: Job }
  | { status: "duplicate" }
  | { status: "refused"; reason: StartRefusal };

/**
 * What a start the store interrupted needs to be made again, once: the id its job was to
 * have, and whether the upload's claim may still be held for it (it was taken and could not
 * be given back).
 */
export interface StartAttempt {
  jobId: string;
  claimed: boolean;
}

/**
 * The store failed while a job was being started: the job is not (or not wholly) recorded.
 * Starting again with `attempt` makes that same job, once, however often the start is tried
 * and whatever else (a redelivered event) started meanwhile.
 */
export class StartNotRecorded extends StoreUnavailableError {
  readonly attempt: StartAttempt;

  constructor(attempt: StartAttempt, cause: unknown) {
    super(cause);
    this.name = "StartNotRecorded";
    this.attempt = attempt;
  }
}

export interface JobStartsOptions {
  repo: JobRepository;
  store: Store;
  workspaces: WorkspaceData;
  runner: Pick<JobRunner, "kick">;
  logger: Logger;
  dedupeTtlMs: number;
  canPrepare: boolean;
  now: () => number;
  newId: () => string;
  /** An upload started before the store lost its data (see `StoreResetWatch.alreadyStarted`). */
  alreadyStarted?: ((origin: Origin, source: SourceFile) => Promise<boolean>) | undefined;
}

type StartInput = { origin: Origin; source: SourceFile; options: JobOptions };

/** How jobs come to be: once per upload (`channel:file`), whatever fails on the way. */
export class JobStarts {
  readonly #o: JobStartsOptions;

  constructor(options: JobStartsOptions) {
    this.#o = options;
  }

  /** True the first time `key` is claimed within the dedupe period. */
  claimOnce(key: string): Promise<boolean> {
    return this.#o.store.claim(key, this.#o.dedupeTtlMs);
  }

  /** See `JobService.start`; `resume` is the attempt a {@link StartNotRecorded} gave. */
  async start(input: StartInput, resume?: StartAttempt): Promise<StartResult> {
    const { origin, source } = input;
    const key = uploadKey(origin.channelId, source.fileId);
    const jobId = resume?.jobId ?? this.#o.newId();
    // Claimed before the checks, so a refusal too is said once however often Slack
    // delivers the event; a refused file stays refused, so the claim is kept.
    const claimed = await this.claimOnce(key).catch((error: unknown) => {
      throw new StartNotRecorded({ jobId, claimed: resume?.claimed ?? false }, error);
    });
    // Held already by the attempt this one resumes: go on under it.
    if (!claimed && resume?.claimed !== true) return { status: "duplicate" };
    const refusal = checkRecording(source, this.#o.canPrepare);
    if (refusal !== undefined) return { status: "refused", reason: refusal };
    // The claim is new, but the store may have lost it with everything else: the thread says.
    if (claimed && (await this.#o.alreadyStarted?.(origin, source))) return { status: "duplicate" };
    if (resume !== undefined && (await this.#recorded(jobId, resume))) {
      return { status: "duplicate" };
    }
    return this.#create(input, key, jobId);
  }

  /** See `JobService.startInThread`. */
  async startInThread(
    input: { origin: Omit<Origin, "threadTs">; source: SourceFile; options: JobOptions },
    openThread: () => Promise<string>,
  ): Promise<StartResult> {
    const key = uploadKey(input.origin.channelId, input.source.fileId);
    if (!(await this.claimOnce(key))) return { status: "duplicate" };
    const release = () => this.#o.store.releaseClaim(key).catch(() => undefined);
    const refusal = checkRecording(input.source, this.#o.canPrepare);
    if (refusal !== undefined) {
      await release();
      return { status: "refused", reason: refusal };
    }
    const threadTs = await openThread().catch(async (error: unknown) => {
      await release();
      throw error;
    });
    const jobId = this.#o.newId();
    return this.#create({ ...input, origin: { ...input.origin, threadTs } }, key, jobId);
  }

  /**
   * Whether the interrupted attempt recorded its job after all (the store failed after the
   * record was written): then it is not made again.
   */
  async #recorded(jobId: string, resume: StartAttempt): Promise<boolean> {
    try {
      return (await this.#o.repo.get(jobId)) !== undefined;
    } catch (error) {
      throw new StartNotRecorded(resume, error);
    }
  }

  /**
   * Records a new job under the claim `key`. When the store fails, the claim is given back
   * if it can be, so a redelivered event may start the job; the error says how to start
   * this one again ({@link StartNotRecorded}).
   */
  async #create(input: StartInput, key: string, jobId: string): Promise<StartResult> {
    const { origin, source } = input;
    const now = this.#o.now();
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
      // Noted first: a crash between the writes leaves a note of nothing, never an
      // unnoted job that an uninstall would miss.
      const workspaces = this.#o.workspaces;
      const tenant = tenantOfOrigin(origin);
      await workspaces.note(tenant, "jobs", job.id);
      await workspaces.noteIndex(tenant, channelIndex(tenant, origin.channelId));
      await workspaces.noteIndex(tenant, userIndex(tenant, origin.userId));
      await this.#o.repo.create(job);
    } catch (error) {
      const released = await this.#o.store.releaseClaim(key).then(
        () => true,
        () => false,
      );
      throw new StartNotRecorded({ jobId, claimed: !released }, error);
    }
    this.#o.logger.info({ jobId: job.id, file: source.fileId, bytes: source.size }, "job created");
    this.#o.runner.kick(job.id);
    return { status: "created", job };
  }
}
