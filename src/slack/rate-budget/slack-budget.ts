import { setTimeout as sleep } from "node:timers/promises";
import { LRUCache } from "lru-cache";
import type { Logger } from "pino";
import type { SlackDistribution } from "../../config-schema.ts";
import { BACKOFFS, backoffDelayMs } from "../../util/backoff.ts";
import { callScope } from "./call-scope.ts";
import { historyAllowance, withPageLimit } from "./history-rule.ts";
import { isIdempotent } from "./idempotent-methods.ts";
import { allowanceOf, POST_PER_CHANNEL } from "./method-tiers.ts";
import { apiMethodOf, channelOf, rateLimitedResponse, retryAfterOf } from "./slack-wire.ts";

export { apiMethodOf };

import { TokenBucket } from "./token-bucket.ts";

/** Who is waiting on a call: a person (an ack, a modal) or the job runner. */
export type CallerKind = "interactive" | "background";

/** One Web API call: who waits on it, its method, and its workspace's limits. */
interface Call {
  kind: CallerKind;
  method: string;
  limits: WorkspaceLimits;
}

/** What `@slack/web-api`'s `fetch` option takes. */
export type FetchFunction = (
  input: string | URL | Request,
  init?: RequestInit,
) => Promise<Response>;

export interface SlackBudgetOptions {
  logger: Logger;
  /**
   * The share of each method's allowance background work may spend; the rest is the
   * headroom calls for a waiting person use, which never queue behind background work.
   */
  backgroundShare?: number;
  /** Request timeouts, counted from when the request is sent (after any wait for budget). */
  timeoutMs?: { interactive: number; background: number };
  /** The longest `Retry-After` background work waits out itself before giving the 429 back. */
  maxRetryWaitMs?: number;
  /**
   * Scales every allowance's rate (SLACK_RATE_SHARE): below 1 when several replicas share a
   * workspace's limits, above 1 only against a test Slack whose limits are scaled too.
   */
  allowanceScale?: number;
  /**
   * SLACK_APP_DISTRIBUTION: a `distributed` app reads history at Slack's rule for it
   * (history-rule.ts): one read a minute of each method per workspace, shared by people and
   * the runner, at most 15 objects a call. Default `internal`.
   */
  distribution?: SlackDistribution;
  /** Told of every 429 Slack answered. */
  onRateLimited?: (method: string, retryAfterS: number, kind: CallerKind) => void;
  /**
   * How an idempotent call whose answer was lost (a network error, a timeout, a 5xx) is
   * sent again: at most `tries` sends in all, waiting `baseDelayMs`, then 4× that… between.
   */
  resend?: { tries: number; baseDelayMs: number };
  fetch?: FetchFunction;
  /**
   * The clock of refills and Retry-After windows: monotonic by default, so setting the
   * host's clock back does not empty every bucket for as long (a wall clock moved 10 minutes
   * back stalled each method's calls for 10 minutes).
   */
  now?: () => number;
}

const DEFAULT_TIMEOUTS = { interactive: 10_000, background: 30_000 };
/** What background work may spend of a tier: the rest is a waiting person's headroom. */
const BACKGROUND_SHARE = 0.8;
const DEFAULT_MAX_RETRY_WAIT_MS = 60_000;
/** A background call Slack rate-limits is sent again at most this often. */
const MAX_RATE_LIMITED_TRIES = 3;
/** Idempotent calls whose answer was lost: 3 sends, 250 ms then 1 s apart. */
const DEFAULT_RESEND = { tries: 3, baseDelayMs: BACKOFFS.slackResend.baseMs };
/**
 * Workspaces whose limits are kept at once; one past it drops the longest unused (its calls
 * under way keep theirs; a later call starts from a full allowance).
 */
const MAX_WORKSPACES = 1_000;

/** What Slack counts per workspace: each method's allowance, Retry-After, one call in flight. */
class WorkspaceLimits {
  readonly buckets = new Map<string, TokenBucket>();
  /** When each method's `Retry-After` ends (ms since the epoch). */
  readonly windows = new Map<string, number>();
  /** The background call of each method under way: one at a time (see `#inLane`). */
  readonly lanes = new Map<string, Promise<unknown>>();
}

/**
 * The bot's Slack rate budget, kept per workspace as Slack applies its limits ("per API
 * method per workspace/team per app", https://docs.slack.dev/apis/web-api/rate-limits): a
 * busy workspace of an OAuth deployment does not slow another. Applied under
 * `@slack/web-api` through its `fetch` option, so every method call, the ones files.uploadV2
 * makes too, passes here:
 * - no request goes to a method while Slack's `Retry-After` for it runs: a call then is
 *   answered here with the 429 Slack would give (interactive) or waits it out (background);
 * - background calls share each method's allowance per workspace (its tier, `method-tiers.ts`)
 *   and, for `chat.postMessage`, about one a second per channel; they queue for it in order,
 *   one call of a method in flight at a time;
 * - interactive calls are never paced: they use what background work leaves, and a person
 *   waiting never queues behind a status update;
 * - every request has a timeout, started when it is sent;
 * - a call whose answer was lost (a network error, a timeout, a 5xx) is sent again, a few
 *   times and quickly, only when its method is idempotent (`idempotent-methods.ts`); the
 *   clients above never re-send anything themselves, so a message whose answer was lost is
 *   never posted twice: the caller looks for it first (the job's thread, the bot's files);
 * - a background call a person is looking at (`CallScope.person`: what their command did)
 *   goes as an interactive one, and a call whose caller stopped waiting for it
 *   (`CallScope.yieldSignal`) waits and re-sends no more.
 * (With several replicas each has its own budget; a 429 is then handled as above.)
 * Which workspace a call counts against is `fetchFor`'s `workspace`, read per request.
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

  /** 429s Slack has answered so far (metrics, benchmarks). */
  get rateLimited(): number {
    return this.#rateLimited;
  }

  /**
   * The `fetch` for a `WebClient` whose calls are of `kind`; `urgent` background calls (a
   * prompt a person waits for) take their method's budget before the ordinary ones.
   * `workspace`: the workspace each call counts against, asked per call (one, by default).
   */
  fetchFor(kind: CallerKind, urgent = false, workspace: () => string = () => ""): FetchFunction {
    return (input, init) => this.#send(kind, urgent, workspace(), input, init);
  }

  #limitsOf(workspace: string): WorkspaceLimits {
    let limits = this.#workspaces.get(workspace);
    if (limits === undefined) {
      limits = new WorkspaceLimits();
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
    // Its waits end when the caller stops waiting; the request, once sent, is left alone.
    const yieldSignal = scope?.yieldSignal;
    const waits =
      yieldSignal === undefined ? sent : { ...sent, signal: anySignal(sent, yieldSignal) };
    return this.#sendApi(call, urgent, input, { init: sent, waits }, timeoutMs);
  }

  /**
   * Sends background calls of one method one after another (their waits for budget happen
   * before, side by side). With no other call of its method in flight when Slack answers
   * 429, none can reach Slack inside the Retry-After it announces; the tiers allow about
   * one call a second per method anyway, and an exchange takes far less.
   */
  #inLane<T>(call: Call, run: () => Promise<T>): Promise<T> {
    const { lanes } = call.limits;
    const previous = lanes.get(call.method) ?? Promise.resolve();
    const mine = previous.then(run, run);
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    lanes.set(call.method, settled);
    void settled.then(() => {
      if (lanes.get(call.method) === settled) lanes.delete(call.method);
    });
    return mine;
  }

  async #sendApi(
    call: Call,
    urgent: boolean,
    input: string | URL | Request,
    { init, waits }: { init: RequestInit; waits: RequestInit },
    timeoutMs: number,
  ): Promise<Response> {
    const { kind, method } = call;
    let limited = 0;
    for (let sent = 1; ; sent++) {
      const closedMs = this.#closedFor(call);
      if (kind === "interactive" && closedMs > 0) return rateLimitedResponse(closedMs);
      if (kind === "background") await this.#takeBudget(call, waits, urgent);
      else if (!this.#takeRationed(call)) {
        const waitMs = this.#bucket(call.limits, method, false).waitMs;
        return rateLimitedResponse(Math.max(1_000, waitMs));
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

  /** One exchange: a background call in its method's lane, once no Retry-After runs. */
  #sendOnce(
    call: Call,
    input: string | URL | Request,
    { init, waits }: { init: RequestInit; waits: RequestInit },
    timeoutMs: number,
  ): Promise<Response> {
    const exchange = () => this.#exchange(call, input, init, timeoutMs);
    if (call.kind === "interactive") return exchange();
    return this.#inLane(call, async () => {
      // A 429 that came while this call waited for its lane: wait that out too.
      await this.#waitWindow(call, waits);
      waits.signal?.throwIfAborted();
      return exchange();
    });
  }

  /** Whether a call whose answer was lost after `sent` sends may go once more. */
  #mayResend(method: string, init: RequestInit, sent: number): boolean {
    const { tries } = this.#o.resend ?? DEFAULT_RESEND;
    return isIdempotent(method) && sent < tries && init.signal?.aborted !== true;
  }

  /** Waits before sending an idempotent call again: a short backoff, growing fourfold. */
  async #beforeResend(method: string, init: RequestInit, sent: number, reason: string) {
    const { baseDelayMs } = this.#o.resend ?? DEFAULT_RESEND;
    this.#o.logger.warn({ method, sent, reason }, "Slack's answer was lost; sending again");
    const signal = init.signal ?? undefined;
    const backoff = { ...BACKOFFS.slackResend, baseMs: baseDelayMs };
    await sleep(backoffDelayMs(backoff, sent - 1), undefined, signal ? { signal } : {});
  }

  /** Sends the request; a 429 opens the method's Retry-After window before anything else runs. */
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
      call.limits.windows.set(method, this.#now() + retryAfterS * 1000);
      this.#o.onRateLimited?.(method, retryAfterS, kind);
      this.#o.logger.warn({ method, retryAfterS, kind }, "Slack rate-limited a call");
    }
    return response;
  }

  /** Waits until no Retry-After of the method runs. */
  async #waitWindow(call: Call, init: RequestInit): Promise<void> {
    const signal = init.signal ?? undefined;
    for (let closedMs = this.#closedFor(call); closedMs > 0; closedMs = this.#closedFor(call)) {
      await sleep(closedMs, undefined, signal ? { signal } : {});
    }
  }

  /** Waits for the method's window to end and for its budget (and its channel's). */
  async #takeBudget(call: Call, init: RequestInit, urgent: boolean): Promise<void> {
    const signal = init.signal ?? undefined;
    for (;;) {
      await this.#waitWindow(call, init);
      if (call.method === "chat.postMessage") {
        const channel = channelOf(init.body);
        if (channel !== undefined) {
          await this.#bucket(call.limits, `channel:${channel}`, true).take(signal, urgent);
        }
      }
      await this.#bucket(call.limits, call.method, false).take(signal, urgent);
      // A 429 that came while this call waited for its turn: wait that out too.
      if (this.#closedFor(call) === 0) return;
    }
  }

  get #distribution(): SlackDistribution {
    return this.#o.distribution ?? "internal";
  }

  /**
   * A person's call of a rationed method (history-rule.ts) takes the minute's read when it
   * is free, and is never queued for it: true when it may go (or the method is not rationed).
   */
  #takeRationed(call: Call): boolean {
    if (historyAllowance(call.method, this.#distribution) === undefined) return true;
    return this.#bucket(call.limits, call.method, false).tryTake();
  }

  #bucket(limits: WorkspaceLimits, key: string, perChannel: boolean): TokenBucket {
    let bucket = limits.buckets.get(key);
    if (bucket === undefined) {
      const rationed = perChannel ? undefined : historyAllowance(key, this.#distribution);
      const base = perChannel ? POST_PER_CHANNEL : (rationed ?? allowanceOf(key));
      // A rationed method's one read is everyone's: no headroom to keep from it.
      const share = rationed !== undefined ? 1 : (this.#o.backgroundShare ?? BACKGROUND_SHARE);
      bucket = new TokenBucket(
        {
          perMinute: base.perMinute * share * (this.#o.allowanceScale ?? 1),
          burst: Math.max(1, Math.floor(base.burst * share)),
        },
        this.#now,
      );
      limits.buckets.set(key, bucket);
    }
    return bucket;
  }

  #closedFor(call: Call): number {
    const { windows } = call.limits;
    const until = windows.get(call.method);
    if (until === undefined) return 0;
    const left = until - this.#now();
    if (left <= 0) windows.delete(call.method);
    return Math.max(0, left);
  }

  #request(input: string | URL | Request, init: RequestInit, timeoutMs: number) {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    return this.#fetch(input, { ...init, signal });
  }
}

/** A signal that aborts with the first of the request's own and `other`. */
function anySignal(init: RequestInit, other: AbortSignal): AbortSignal {
  return init.signal ? AbortSignal.any([init.signal, other]) : other;
}
