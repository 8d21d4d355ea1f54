import type { Logger } from "pino";
import type { Job } from "../model/job.ts";
import type { JobRepository } from "../persistence/job-repository.ts";
import type { SlackPort } from "../ports.ts";
import { endedByLostInstall } from "./failure-policy.ts";

/**
 * What a person's command did, drawn in the job's status message at once and ahead of
 * background draws (`StatusMode` "person"), without holding anything a step needs: the
 * draw is not waited for, and a failure is only logged (the next stage change draws again).
 */
export class PersonDraws {
  readonly #o: { gateway: SlackPort; repo: JobRepository; logger: Logger };
  readonly #drawing = new Set<Promise<unknown>>();

  constructor(options: { gateway: SlackPort; repo: JobRepository; logger: Logger }) {
    this.#o = options;
  }

  /** Draws under way. */
  get size(): number {
    return this.#drawing.size;
  }

  /**
   * Draws `job` as it now stands. A status message whose post may have reached Slack (its
   * answer lost) is looked for first; one never posted is left to the job's next step (the
   * post is checkpointed there). A job whose install lost its tokens has nothing to draw
   * with (the record keeps the sentence for App Home).
   */
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

  /** Resolves once the draws under way now are done. */
  async idle(): Promise<void> {
    await Promise.all(this.#drawing);
  }
}
