/**
 * What people do during a fault, sent to the bot as Slack sends it: uploads (both of an
 * upload's events, with Slack's retries of a delivery that failed) and clicks on the bot's
 * buttons (never retried by Slack). Every request is given up after 3 s, as Slack gives up;
 * in Socket Mode they are envelopes the fake Socket Mode server sends and times.
 */
import { randomBytes } from "node:crypto";
import { socketDelivery } from "../e2e/slack-delivery.ts";
import { ALICE, CHANNEL, SIGNING_SECRET } from "../e2e/stack.ts";
import {
  blockActionPayload,
  fileSharedEvent,
  fileShareMessageEvent,
} from "../fake-slack/slack-payloads.ts";
import { sendAction, sendEvent } from "../fake-slack/slack-request.ts";
import { recordingBytes } from "../fakes/recording-bytes.ts";
import { SLACK_REQUEST_TIMEOUT_MS, slackRetryDelaysMs } from "./fault-scale.ts";
import type { FaultWorld } from "./fault-world.ts";

/** One upload and each delivery of its events. */
export interface Upload {
  name: string;
  /** The upload's message: the thread the bot answers in. */
  ts: string;
  /** The HTTP status of each delivery of its events (0: no answer within 3 s, or refused). */
  deliveries: number[];
  /** Resolves once Slack has stopped delivering it (taken, or its retries ran out). */
  done: Promise<void>;
}

/** A click and what the bot answered. */
export interface Click {
  actionId: string;
  jobId: string;
  status: number;
  ms: number;
}

/**
 * `user` (Alice) shares a recording `name` in the channel, and Slack sends the bot both of
 * the upload's events — the `file_share` message and `file_shared` (ids only), each its own
 * delivery (https://docs.slack.dev/reference/events/file_shared) — and each again on
 * Slack's schedule while the bot does not answer 200 within 3 s (`x-slack-retry-num`,
 * `x-slack-retry-reason`), three retries at most.
 */
export function upload(
  world: FaultWorld,
  name: string,
  options: { user?: string; bytes?: Buffer } = {},
): Upload {
  const user = options.user ?? ALICE;
  const file = world.fake.addFile({ name, bytes: options.bytes ?? recordingBytes(name), user });
  const message = world.fake.shareFile(file, { channel: CHANNEL, user });
  const deliveries: number[] = [];
  const events = [
    fileShareMessageEvent(file, { channel: CHANNEL, user, ts: message.ts }),
    fileSharedEvent(file.id, { channel: CHANNEL, user }),
  ];
  const socket = world.fake.socket;
  const done = Promise.all(
    events.map((event) =>
      socket === undefined
        ? deliverWithRetries(world, event, deliveries)
        : // The fake Socket Mode server redelivers an envelope not acked within 3 s, as Slack does.
          socketDelivery(socket, world.fake.teamId)
            .event(event)
            .then((sent) => void deliveries.push(sent.acked ? 200 : 0)),
    ),
  );
  return { name, ts: message.ts, deliveries, done: done.then(() => undefined) };
}

/** One event delivered as Slack delivers it: again on its schedule while not taken. */
async function deliverWithRetries(
  world: FaultWorld,
  event: Record<string, unknown>,
  statuses: number[],
): Promise<void> {
  const eventId = `Ev0${randomBytes(5).toString("hex").toUpperCase()}`;
  const deliver = async (retry: number, reason: string) => {
    const url = world.botUrl();
    if (url === undefined) {
      statuses.push(0);
      return "connection_failed";
    }
    try {
      const answer = await sendEvent(url, SIGNING_SECRET, event, {
        teamId: world.fake.teamId,
        eventId,
        ...(retry === 0 ? {} : { retryNum: retry, retryReason: reason }),
        signal: AbortSignal.timeout(SLACK_REQUEST_TIMEOUT_MS),
      });
      statuses.push(answer.status);
      return answer.status === 200 ? undefined : "http_error";
    } catch (error) {
      statuses.push(0);
      return (error as Error).name === "TimeoutError" ? "http_timeout" : "connection_failed";
    }
  };
  let failed = await deliver(0, "");
  for (const [index, wait] of slackRetryDelaysMs().entries()) {
    if (failed === undefined) return;
    await new Promise((resolve) => setTimeout(resolve, wait));
    failed = await deliver(index + 1, failed);
  }
}

/** `user` clicks `actionId` on a job's status message; resolves with the bot's answer. */
export async function click(
  world: FaultWorld,
  actionId: string,
  at: { jobId: string; statusTs: string; threadTs: string },
  user = ALICE,
): Promise<Click> {
  const payload = blockActionPayload({
    actionId,
    value: at.jobId,
    user,
    channel: CHANNEL,
    messageTs: at.statusTs,
    threadTs: at.threadTs,
  });
  const started = performance.now();
  let status = 0;
  const socket = world.fake.socket;
  if (socket !== undefined) {
    // Acked within Slack's 3 s, or not at all (never redelivered: Slack tells the person).
    const sent = await socketDelivery(socket, world.fake.teamId).interaction(payload);
    return { actionId, jobId: at.jobId, status: sent.acked ? 200 : 0, ms: sent.ms };
  }
  try {
    const answer = await sendAction(
      world.botUrl() ?? "http://127.0.0.1:9/",
      SIGNING_SECRET,
      payload,
      {
        signal: AbortSignal.timeout(SLACK_REQUEST_TIMEOUT_MS),
      },
    );
    status = answer.status;
  } catch {
    status = 0;
  }
  return { actionId, jobId: at.jobId, status, ms: performance.now() - started };
}
