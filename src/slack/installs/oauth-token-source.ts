import { LRUCache } from "lru-cache";
import { z } from "zod";
import { type LeaseOptions, withLease } from "../../jobs/persistence/with-lease.ts";
import type { Logger } from "../../logger.ts";
import type { Store } from "../../store/index.ts";
import { platformErrorOf } from "../gateway/slack-errors.ts";
import {
  type EncryptedInstallationStore,
  type InstallRecord,
  type InstallSnapshot,
  usable,
} from "./installation-store.ts";
import { InstallUnavailable, type TokenSource } from "./token-source.ts";

/** What `oauth.v2.access` with `grant_type=refresh_token` answers (the parts used). */
export const refreshAnswerSchema = z.object({
  access_token: z.string(),
  refresh_token: z.string(),
  expires_in: z.number(),
});
export type RefreshAnswer = z.infer<typeof refreshAnswerSchema>;

export type Refresh = (refreshToken: string) => Promise<RefreshAnswer>;

export interface OAuthTokenSourceOptions {
  installs: EncryptedInstallationStore;
  store: Store;
  refresh: Refresh;
  logger: Logger;
  /** The wall clock: Slack's `expires_in` and `@slack/oauth`'s `expiresAt` are on it. */
  now?: () => number;
  leaseWait?: LeaseOptions["retry"];
  /** Not awaited: the step that found the revocation may hold one of the install's jobs. */
  onRevoked?: (install: string) => void;
}

/** Slack's refusals of a refresh token that no retry will change. */
const REFRESH_REVOKED = new Set(["invalid_refresh_token", "token_revoked", "invalid_grant"]);
const LEASE_TTL_MS = 30_000;
/** A token this close to its expiry is refreshed first: 2 hours, as `@slack/oauth`. */
const REFRESH_MARGIN_MS = 2 * 60 * 60_000;

/**
 * Bot tokens of the installs by OAuth, refreshed under the lease `install-refresh:<install>` since
 * Slack's refresh token is single-use; writes compare-and-set, so a reinstall is never overwritten.
 */
export class OAuthTokenSource implements TokenSource {
  readonly #o: OAuthTokenSourceOptions;
  readonly #now: () => number;
  /** Decrypted installs kept briefly. */
  readonly #cache: LRUCache<string, InstallSnapshot>;
  readonly #refreshing = new Map<string, Promise<InstallRecord>>();
  refreshes = 0;

  constructor(options: OAuthTokenSourceOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#cache = new LRUCache({
      max: 500,
      ttl: 30_000,
      ttlResolution: 0,
      perf: { now: this.#now },
    });
  }

  async botToken(install: string): Promise<string> {
    return botOf(install, await this.installation(install)).token;
  }

  /** @throws InstallUnavailable when not installed, or revoked. */
  async installation(install: string): Promise<InstallRecord> {
    const { record } = usable(install, await this.#read(install, true));
    return this.#expiring(record)
      ? this.#refreshOnce(install, botOf(install, record).token)
      : record;
  }

  async refused(install: string, token: string, error: string): Promise<string | undefined> {
    try {
      const read = usable(install, await this.#read(install, false));
      const bot = botOf(install, read.record);
      if (bot.token !== token) return bot.token;
      if (error === "token_revoked") {
        if (await this.#markRevoked(install, error, read)) return undefined;
        return botOf(install, await this.#current(install)).token;
      }
      if (bot.refreshToken === undefined) return undefined;
      return botOf(install, await this.#refreshOnce(install, token)).token;
    } catch (unavailable) {
      if (unavailable instanceof InstallUnavailable) return undefined;
      throw unavailable;
    }
  }

  forget(install: string): void {
    this.#cache.delete(install);
  }

  #expiring(record: InstallRecord): boolean {
    const bot = record.installation.bot;
    if (bot?.refreshToken === undefined || bot.expiresAt === undefined) return false;
    return bot.expiresAt * 1000 - this.#now() < REFRESH_MARGIN_MS;
  }

  async #read(install: string, cached: boolean): Promise<InstallSnapshot | undefined> {
    const hit = cached ? this.#cache.get(install) : undefined;
    // Never revoked from here: another replica may have installed the app again.
    if (hit !== undefined && hit.record.revokedAt === undefined) return hit;
    return this.#keep(install, await this.#o.installs.snapshot(install));
  }

  #keep(install: string, snapshot: InstallSnapshot | undefined): InstallSnapshot | undefined {
    if (snapshot === undefined) this.#cache.delete(install);
    else this.#cache.set(install, snapshot);
    return snapshot;
  }

  async #current(install: string): Promise<InstallRecord> {
    return usable(install, await this.#read(install, false)).record;
  }

  #refreshOnce(install: string, stale: string): Promise<InstallRecord> {
    const running = this.#refreshing.get(install);
    if (running !== undefined) return running;
    const refresh = this.#refreshUnderLease(install, stale).finally(() =>
      this.#refreshing.delete(install),
    );
    this.#refreshing.set(install, refresh);
    return refresh;
  }

  async #refreshUnderLease(install: string, stale: string): Promise<InstallRecord> {
    const done = await withLease(
      this.#o.store,
      `install-refresh:${install}`,
      { ttlMs: LEASE_TTL_MS, retry: this.#o.leaseWait ?? { tries: 100, delayMs: 100 } },
      async () => {
        // Read again under the lease: the replica that held it before may have refreshed.
        const read = usable(install, await this.#read(install, false));
        const { record } = read;
        if (botOf(install, record).token !== stale && !this.#expiring(record)) return record;
        return this.#refresh(install, read);
      },
    );
    // The holder took longer: the stored token, old or not, serves until it expires.
    return done.held ? done.value : this.#current(install);
  }

  async #refresh(install: string, read: InstallSnapshot): Promise<InstallRecord> {
    const { record } = read;
    const bot = botOf(install, record);
    if (bot.refreshToken === undefined) return record;
    let answer: RefreshAnswer;
    try {
      answer = await this.#o.refresh(bot.refreshToken);
    } catch (error) {
      const code = platformErrorOf(error);
      if (code === undefined || !REFRESH_REVOKED.has(code)) throw error;
      if (await this.#markRevoked(install, code, read)) {
        throw new InstallUnavailable(install, "revoked");
      }
      return this.#current(install);
    }
    this.refreshes += 1;
    const nowSec = Math.floor(this.#now() / 1000);
    const refreshed: InstallRecord = {
      ...record,
      installation: {
        ...record.installation,
        bot: {
          ...bot,
          token: answer.access_token,
          refreshToken: answer.refresh_token,
          expiresAt: nowSec + answer.expires_in,
        },
      },
    };
    const written = this.#keep(install, await this.#o.installs.replace(install, read, refreshed));
    if (written === undefined) {
      this.#o.logger.info({ install }, "installation changed while its token was refreshed");
      return this.#current(install);
    }
    this.#o.logger.info({ install }, "refreshed the bot token of an installation");
    return refreshed;
  }

  /** False when the record changed since `read` (installed again): left untouched. */
  async #markRevoked(install: string, code: string, read: InstallSnapshot): Promise<boolean> {
    this.#cache.delete(install);
    const revoked = { ...read.record, revokedAt: this.#now() };
    if ((await this.#o.installs.replace(install, read, revoked)) === undefined) return false;
    this.#o.logger.error(
      { install, slackError: code },
      `Slack revoked the tokens of installation ${install} (${code}): the bot stops working there until it is installed again from /slack/install.`,
    );
    this.#o.onRevoked?.(install);
    return true;
  }
}

function botOf(install: string, record: InstallRecord) {
  const bot = record.installation.bot;
  if (bot === undefined) throw new InstallUnavailable(install, "not_installed");
  return bot;
}
