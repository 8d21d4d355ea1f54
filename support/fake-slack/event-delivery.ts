import type { ConnectHost } from "./fake-slack-types.ts";
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

/** Identities stamped on an envelope: the workspace and the install it is delivered to. */
export interface DeliveryWorkspace {
  teamId: string;
  botUserId: string;
  appId: string;
  enterpriseId?: string | undefined;
  isEnterpriseInstall?: boolean | undefined;
  /** The workspace hosting the Slack Connect channel the event happened in, if it is one. */
  host?: ConnectHost | undefined;
  /** An event about the organisation (`team_access_revoked`): `team_id` null. */
  orgLevel?: boolean | undefined;
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

  /**
   * Queues `event` for delivery, in the envelope of `to` (default: the workspace this
   * delivery was made for); nothing when delivery is off.
   */
  send(event: Record<string, unknown>, to: DeliveryWorkspace = this.#workspace): void {
    const target = this.#target;
    if (target === undefined) return;
    this.#pending += 1;
    this.#queue = this.#queue
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => this.#deliver(target, event, to))
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

  async #deliver(
    target: DeliveryTarget,
    event: Record<string, unknown>,
    to: DeliveryWorkspace,
  ): Promise<void> {
    const { teamId, botUserId, appId, enterpriseId, isEnterpriseInstall, host, orgLevel } = to;
    try {
      const sent = await sendEvent(target.url, target.signingSecret, event, {
        teamId,
        botUserId,
        apiAppId: appId,
        ...(enterpriseId !== undefined ? { enterpriseId } : {}),
        ...(isEnterpriseInstall === true ? { isEnterpriseInstall } : {}),
        ...(host !== undefined ? { host } : {}),
        ...(orgLevel === true ? { orgLevel } : {}),
      });
      this.delivered.push({ event, eventId: sent.eventId, status: sent.status, at: Date.now() });
    } catch {
      this.delivered.push({ event, eventId: "", status: 0, at: Date.now() });
    }
  }
}
