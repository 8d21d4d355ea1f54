import type { WebClient } from "@slack/web-api";
import type { Logger } from "pino";
import {
  installOf,
  type Job,
  type JobIn,
  type StepCompletion,
  type WorkflowPort,
} from "../../jobs/index.ts";
import { localeOf, t } from "../messages/index.ts";
import { endingSentence } from "../views/index.ts";
import { platformErrorOf, toGatewayError } from "./slack-errors.ts";
import { findNotePart } from "./thread-reader.ts";

export interface WorkflowGatewayOptions {
  /**
   * The client of a job's installation (its bot's own token), on the budget's background
   * lane, its calls first: someone's workflow waits on the step. `teamId`: the job's
   * workspace, which an org-wide install's calls name.
   */
  clientFor: (install: string, teamId: string) => WebClient;
  logger: Logger;
  onError?: (operation: string, label: string) => void;
}

/**
 * Completes the Workflow Builder step of a job that ended: `functions.completeSuccess` with
 * the note's outputs, or `functions.completeError` with the job's one sentence. Sent with the
 * bot's own token: the event's `bot_access_token` lives only while Slack waits on the step,
 * which a job (a person naming speakers, a review) may outlast, and a token kept in a job
 * record would be one more secret at rest.
 */
export class WorkflowGateway implements WorkflowPort {
  readonly #o: WorkflowGatewayOptions;

  constructor(options: WorkflowGatewayOptions) {
    this.#o = options;
  }

  async succeed(job: JobIn<"done">): Promise<StepCompletion> {
    const noteLink = await this.#noteLink(job);
    // A link Slack would not give (the bot left the channel): the step says so, not a half.
    if (noteLink === undefined) {
      return this.#fail(job, t(localeOf(job.origin.locale), "step.no_link"));
    }
    const outputs = {
      note_link: noteLink,
      ...(job.canvas === undefined ? {} : { canvas: job.canvas.id }),
      ...(job.docxFileId === undefined ? {} : { docx: job.docxFileId }),
    };
    return this.#send(job, "completeSuccess", () =>
      this.#clientOf(job).functions.completeSuccess({
        function_execution_id: executionOf(job),
        outputs,
      }),
    );
  }

  fail(job: JobIn<"failed" | "canceled" | "discarded">): Promise<StepCompletion> {
    return this.#fail(job, endingSentence(job, localeOf(job.origin.locale)));
  }

  #fail(job: Job, sentence: string): Promise<StepCompletion> {
    return this.#send(job, "completeError", () =>
      this.#clientOf(job).functions.completeError({
        function_execution_id: executionOf(job),
        error: sentence,
      }),
    );
  }

  /** The permalink of the note's first message (else of its thread); undefined if refused. */
  async #noteLink(job: JobIn<"done">): Promise<string | undefined> {
    const client = this.#clientOf(job);
    const channel = job.origin.channelId;
    try {
      const ts = (await findNotePart(client, job, 0)) ?? job.origin.threadTs;
      const answer = await client.chat.getPermalink({ channel, message_ts: ts });
      return answer.permalink;
    } catch (error) {
      const failure = toGatewayError(error, "chat.getPermalink");
      if (failure.transient) throw failure;
      this.#o.logger.warn({ err: error, jobId: job.id }, "no link to the notes for the step");
      return undefined;
    }
  }

  #clientOf(job: Job): WebClient {
    return this.#o.clientFor(installOf(job.origin), job.origin.teamId);
  }

  async #send(job: Job, method: string, call: () => Promise<unknown>): Promise<StepCompletion> {
    try {
      await call();
      return "completed";
    } catch (error) {
      const code = platformErrorOf(error);
      // A completion was taken already: an earlier try's, whose answer was lost
      // (https://docs.slack.dev/reference/methods/functions.completeSuccess, "Errors").
      if (code === "execution_not_in_running_state") return "already";
      const failure = toGatewayError(error, `functions.${method}`);
      this.#o.onError?.(`functions.${method}`, code ?? failure.failure ?? "failed");
      if (failure.transient) throw failure;
      // Refused for good (the run unknown or not ours, a token Slack no longer takes), or
      // never sent (the install lost its tokens: none to send it with until it is installed
      // again): trying every sweep until the job expires would change nothing. Said once.
      const lost = failure.failure === "install_unavailable";
      this.#o.logger.warn(
        { err: error, jobId: job.id, executionId: job.origin.executionId, code },
        lost
          ? "the workflow step could not be completed: its install has no token any more"
          : "Slack took no completion of the workflow step",
      );
      return "refused";
    }
  }
}

function executionOf(job: Job): string {
  const id = job.origin.executionId;
  if (id === undefined) throw new Error(`job ${job.id} has no workflow step`);
  return id;
}
