import { sendEvent } from "./slack-request.ts";

/** Where the fake delivers Events API callbacks: the app's request URL and signing secret. */
export interface DeliveryTarget {
  url: string;
  signingSecret: string;
}

/** One Events API callback the fake sent, and what the app answered. */
export interface FakeDelivery {
  event: Record<string, unknown>;
  eventId: string;
  /** The app's HTTP status; 0 when the request itself failed (the app was gone). */
  status: number;
  at: number;
}

/** Identities stamped on every envelope. */
export interface DeliveryWorkspace {
  teamId: string;
  botUserId: string;
  appId: string;
}

/**
 * Delivers events to the app over HTTP, signed as Slack signs them, one at a time in the
 * order they happened, each after the Web API answer that caused it (Slack sends the event
 * once the post exists). Off until given a target: tests that send their own events keep
 * their meaning.
 */
export class EventDelivery {
  readonly delivered: FakeDelivery[] = [];
  readonly #workspace: DeliveryWorkspace;
  #target: DeliveryTarget | undefined;
  #queue: Promise<void> = Promise.resolve();
  #pending = 0;

  constructor(workspace: DeliveryWorkspace) {
    this.#workspace = workspace;
  }

  /** Starts (or, with undefined, stops) delivering. */
  setTarget(target: DeliveryTarget | undefined): void {
    this.#target = target;
  }

  get enabled(): boolean {
    return this.#target !== undefined;
  }

  /** Queues `event` for delivery; nothing when delivery is off. */
  send(event: Record<string, unknown>): void {
    const target = this.#target;
    if (target === undefined) return;
    this.#pending += 1;
    this.#queue = this.#queue
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => this.#deliver(target, event))
      .finally(() => {
        this.#pending -= 1;
      });
  }

  /** Events queued and not yet answered by the app. */
  get pending(): number {
    return this.#pending;
  }

  /** Resolves once every event queued so far, and any they led to meanwhile, was delivered. */
  async settled(): Promise<void> {
    for (;;) {
      const queue = this.#queue;
      await queue;
      if (queue === this.#queue) return;
    }
  }

  async #deliver(target: DeliveryTarget, event: Record<string, unknown>): Promise<void> {
    const { teamId, botUserId, appId } = this.#workspace;
    try {
      const sent = await sendEvent(target.url, target.signingSecret, event, {
        teamId,
        botUserId,
        apiAppId: appId,
      });
      this.delivered.push({ event, eventId: sent.eventId, status: sent.status, at: Date.now() });
    } catch {
      this.delivered.push({ event, eventId: "", status: 0, at: Date.now() });
    }
  }
}
