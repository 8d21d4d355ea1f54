import type { Logger } from "pino";
import type { Job } from "../model/job.ts";
import type { JobRepository } from "../persistence/job-repository.ts";
import type { SlackPort } from "../ports.ts";
import { endedByLostInstall } from "./failure-policy.ts";

/**
 * What a person's command did, drawn at once ahead of background draws and never waited for: a
 * failure is only logged (the next stage change draws again).
 */
export class PersonDraws {
  readonly #o: { gateway: SlackPort; repo: JobRepository; logger: Logger };
  readonly #drawing = new Set<Promise<unknown>>();

  constructor(options: { gateway: SlackPort; repo: JobRepository; logger: Logger }) {
    this.#o = options;
  }

  get size(): number {
    return this.#drawing.size;
  }

  /** A message never posted is left to the job's next step, where the post is checkpointed. */
  show(job: Job): void {
    const unposted = job.statusTs === undefined && job.statusPostingAt === undefined;
    if (unposted || endedByLostInstall(job)) return;
    const logger = this.#o.logger.child({ jobId: job.id });
    const mayExist = job.statusTs === undefined;
    const drawing = this.#o.gateway
      .showStatus(job, "person", () => this.#o.repo.get(job.id), mayExist)
      .catch((error: unknown) => logger.warn({ err: error }, "could not update the status message"))
      .finally(() => this.#drawing.delete(drawing));
    this.#drawing.add(drawing);
  }

  async idle(): Promise<void> {
    await Promise.all(this.#drawing);
  }
}
