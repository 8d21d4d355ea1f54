/**
 * Whether the bot can do its work now: the store answers, Slack accepts the token and, in
 * Socket Mode, the socket is connected (without it no event, command or click arrives).
 */
export interface ReadinessReport {
  ok: boolean;
  store: boolean;
  slack: boolean;
  /** Socket Mode only. */
  socket?: boolean;
}

export interface ReadinessOptions {
  pingStore: () => Promise<boolean>;
  /** Resolves when Slack's `auth.test` accepts the bot token. */
  slackAuthTest: () => Promise<unknown>;
  /** Socket Mode: whether the socket is connected now (read on every check). */
  socketConnected?: () => boolean;
  /** How long a passed `auth.test` is trusted (a failed one is tried again sooner). */
  slackCacheMs?: number;
  now?: () => number;
}

/**
 * `/readyz`: the store is pinged on every check (cheap); Slack's `auth.test` is cached so a
 * load balancer probing every few seconds does not spend Slack's rate limit.
 */
export function createReadiness(options: ReadinessOptions) {
  const now = options.now ?? Date.now;
  const okForMs = options.slackCacheMs ?? 60_000;
  let slack: { ok: boolean; until: number } | undefined;
  const slackOk = async (): Promise<boolean> => {
    if (slack !== undefined && now() < slack.until) return slack.ok;
    const ok = await options.slackAuthTest().then(
      () => true,
      () => false,
    );
    slack = { ok, until: now() + (ok ? okForMs : 5_000) };
    return ok;
  };
  return {
    async check(): Promise<ReadinessReport> {
      const [store, slackReady] = await Promise.all([options.pingStore(), slackOk()]);
      const report = { ok: store && slackReady, store, slack: slackReady };
      if (options.socketConnected === undefined) return report;
      const socket = options.socketConnected();
      return { ...report, ok: report.ok && socket, socket };
    },
  };
}
