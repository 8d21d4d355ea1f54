import { setTimeout as sleep } from "node:timers/promises";
import { LRUCache } from "lru-cache";
import type { Logger } from "pino";
import type { SlackDistribution } from "../../config-schema.ts";
import { BACKOFFS, backoffDelayMs } from "../../util/backoff.ts";
import { callScope } from "./call-scope.ts";
import { withPageLimit } from "./history-rule.ts";
import { isIdempotent } from "./idempotent-methods.ts";
import { apiMethodOf, rateLimitedResponse, retryAfterOf } from "./slack-wire.ts";
import { WorkspaceLimits } from "./workspace-limits.ts";

export type CallerKind = "interactive" | "background";

interface Call {
  kind: CallerKind;
  method: string;
  limits: WorkspaceLimits;
}

export type FetchFunction = (
  input: string | URL | Request,
  init?: RequestInit,
) => Promise<Response>;

export interface SlackBudgetOptions {
  logger: Logger;
  /** The share of each allowance background work may spend; the rest is people's headroom. */
  backgroundShare?: number;
  /** Counted from when the request is sent (after any wait for budget). */
  timeoutMs?: { interactive: number; background: number };
  /** The longest `Retry-After` background work waits out before giving the 429 back. */
  maxRetryWaitMs?: number;
  /** SLACK_RATE_SHARE: below 1 when several replicas share a workspace's limits. */
  allowanceScale?: number;
  distribution?: SlackDistribution;
  onRateLimited?: (method: string, retryAfterS: number, kind: CallerKind) => void;
  /** Sends of an idempotent call whose answer was lost, `baseDelayMs` then 4× that apart. */
  resend?: { tries: number; baseDelayMs: number };
  fetch?: FetchFunction;
  /** Monotonic by default: a wall clock set back must not empty the buckets. */
  now?: () => number;
}

const DEFAULT_TIMEOUTS = { interactive: 10_000, background: 30_000 };
const BACKGROUND_SHARE = 0.8;
const DEFAULT_MAX_RETRY_WAIT_MS = 60_000;
const MAX_RATE_LIMITED_TRIES = 3;
const DEFAULT_RESEND = { tries: 3, baseDelayMs: BACKOFFS.slackResend.baseMs };
const MAX_WORKSPACES = 1_000;

/**
 * Every Web API call (the client's `fetch`) passes here, per workspace as Slack applies limits
 * (https://docs.slack.dev/apis/web-api/rate-limits): nothing goes inside a `Retry-After`, and
 * background calls queue for their tier's share while people's calls are never paced.
 */
export class SlackBudget {
  readonly #o: SlackBudgetOptions;
  readonly #now: () => number;
  readonly #fetch: FetchFunction;
  readonly #workspaces = new LRUCache<string, WorkspaceLimits>({ max: MAX_WORKSPACES });
  #rateLimited = 0;

  constructor(options: SlackBudgetOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => performance.now());
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  get rateLimited(): number {
    return this.#rateLimited;
  }

  /** `urgent` background calls take their method's budget first; `workspace` is asked per call. */
  fetchFor(kind: CallerKind, urgent = false, workspace: () => string = () => ""): FetchFunction {
    return (input, init) => this.#send(kind, urgent, workspace(), input, init);
  }

  #limitsOf(workspace: string): WorkspaceLimits {
    let limits = this.#workspaces.get(workspace);
    if (limits === undefined) {
      limits = new WorkspaceLimits({
        distribution: this.#distribution,
        backgroundShare: this.#o.backgroundShare ?? BACKGROUND_SHARE,
        allowanceScale: this.#o.allowanceScale ?? 1,
        now: this.#now,
      });
      this.#workspaces.set(workspace, limits);
    }
    return limits;
  }

  async #send(
    kind: CallerKind,
    urgent: boolean,
    workspace: string,
    input: string | URL | Request,
    init: RequestInit = {},
  ) {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const method = apiMethodOf(url);
    const scope = callScope();
    const as: CallerKind = scope?.person === true ? "interactive" : kind;
    const timeoutMs = (this.#o.timeoutMs ?? DEFAULT_TIMEOUTS)[as];
    if (method === undefined) return this.#request(input, init, timeoutMs);
    const call = { kind: as, method, limits: this.#limitsOf(workspace) };
    const sent = withPageLimit(method, this.#distribution, init);
    const yieldSignal = scope?.yieldSignal;
    const waits =
      yieldSignal === undefined ? sent : { ...sent, signal: anySignal(sent, yieldSignal) };
    return this.#sendApi(call, urgent, input, { init: sent, waits }, timeoutMs);
  }

  async #sendApi(
    call: Call,
    urgent: boolean,
    input: string | URL | Request,
    { init, waits }: { init: RequestInit; waits: RequestInit },
    timeoutMs: number,
  ): Promise<Response> {
    const { kind, method, limits } = call;
    let limited = 0;
    for (let sent = 1; ; sent++) {
      const closedMs = limits.closedFor(method);
      if (kind === "interactive" && closedMs > 0) return rateLimitedResponse(closedMs);
      if (kind === "background") await limits.takeBudget(method, waits, urgent);
      else if (!limits.takeRationed(method)) {
        return rateLimitedResponse(Math.max(1_000, limits.waitMs(method)));
      }
      let response: Response;
      try {
        response = await this.#sendOnce(call, input, { init, waits }, timeoutMs);
      } catch (error) {
        if (!this.#mayResend(method, waits, sent)) throw error;
        await this.#beforeResend(method, waits, sent, String(error));
        continue;
      }
      if (response.status >= 500 && this.#mayResend(method, waits, sent)) {
        await response.body?.cancel();
        await this.#beforeResend(method, waits, sent, `HTTP ${response.status}`);
        continue;
      }
      if (response.status !== 429) return response;
      limited += 1;
      const retryAfterS = retryAfterOf(response);
      const maxWait = this.#o.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
      if (kind === "interactive" || limited >= MAX_RATE_LIMITED_TRIES) return response;
      if (retryAfterS * 1000 > maxWait) return response;
      await response.body?.cancel();
    }
  }

  #sendOnce(
    call: Call,
    input: string | URL | Request,
    { init, waits }: { init: RequestInit; waits: RequestInit },
    timeoutMs: number,
  ): Promise<Response> {
    const exchange = () => this.#exchange(call, input, init, timeoutMs);
    if (call.kind === "interactive") return exchange();
    return call.limits.inLane(call.method, async () => {
      // A 429 that came while this call waited for its lane: wait that out too.
      await call.limits.waitWindow(call.method, waits);
      waits.signal?.throwIfAborted();
      return exchange();
    });
  }

  #mayResend(method: string, init: RequestInit, sent: number): boolean {
    const { tries } = this.#o.resend ?? DEFAULT_RESEND;
    return isIdempotent(method) && sent < tries && init.signal?.aborted !== true;
  }

  async #beforeResend(method: string, init: RequestInit, sent: number, reason: string) {
    const { baseDelayMs } = this.#o.resend ?? DEFAULT_RESEND;
    this.#o.logger.warn({ method, sent, reason }, "Slack's answer was lost; sending again");
    const signal = init.signal ?? undefined;
    const backoff = { ...BACKOFFS.slackResend, baseMs: baseDelayMs };
    await sleep(backoffDelayMs(backoff, sent - 1), undefined, signal ? { signal } : {});
  }

  async #exchange(
    call: Call,
    input: string | URL | Request,
    init: RequestInit,
    timeoutMs: number,
  ): Promise<Response> {
    const { kind, method } = call;
    const response = await this.#request(input, init, timeoutMs);
    if (response.status === 429) {
      const retryAfterS = retryAfterOf(response);
      this.#rateLimited += 1;
      call.limits.close(method, retryAfterS);
      this.#o.onRateLimited?.(method, retryAfterS, kind);
      this.#o.logger.warn({ method, retryAfterS, kind }, "Slack rate-limited a call");
    }
    return response;
  }

  get #distribution(): SlackDistribution {
    return this.#o.distribution ?? "internal";
  }

  #request(input: string | URL | Request, init: RequestInit, timeoutMs: number) {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    return this.#fetch(input, { ...init, signal });
  }
}

function anySignal(init: RequestInit, other: AbortSignal): AbortSignal {
  return init.signal ? AbortSignal.any([init.signal, other]) : other;
}
