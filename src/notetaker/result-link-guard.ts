import { lookup as dnsLookup } from "node:dns";
import type { LookupFunction } from "node:net";
import { Agent, type Dispatcher, getGlobalDispatcher } from "undici";
import { isBlockedAddress, isIpLiteral } from "./blocked-address.ts";
import { NoteTakerLinkRefusedError } from "./errors.ts";

export interface ResultLinkOptions {
  /**
   * Host names an operator trusts (`RESULT_LINK_HOSTS`, e.g. an internal object store):
   * matched exactly, case-insensitively; any address and plain http are allowed for them.
   */
  allowHosts?: readonly string[];
  /** Resolves host names for result links; default `dns.lookup`. Tests inject answers. */
  lookup?: LookupFunction;
  /**
   * Fetches result links instead of the guarded agent (tests: a `MockAgent`). The address
   * check at connect time is then that dispatcher's business; the URL checks still apply.
   */
  dispatcher?: Dispatcher;
}

/** What every hop of a result link goes through. */
export interface ResultLinkGuard {
  /** Local trial: the Note Service itself is on this machine or network, so links may be too. */
  readonly localTrial: boolean;
  /** @throws {NoteTakerLinkRefusedError} when the URL may not be fetched at all. */
  check(url: URL): void;
  /** Connects only to allowed addresses, judged after DNS resolution. */
  readonly dispatcher: Dispatcher;
}

/**
 * Builds the rules for fetching result links. They are fetched over https from public
 * addresses only, unless the Note Service's own base URL is local (`npm run emulator`, the
 * tests) or the host is allowlisted. The address is judged when the connection is made, on
 * what DNS answered then, so a name that resolves to a public address for a check and to a
 * private one for the fetch (DNS rebinding) cannot slip through; IP literals, which never go
 * through a lookup, are judged from the URL.
 * @param fallback the client's dispatcher, used as is in local trial.
 */
export function createResultLinkGuard(
  baseUrl: string,
  options: ResultLinkOptions,
  fallback: Dispatcher | undefined,
): ResultLinkGuard {
  const localTrial = isLocalHostname(new URL(baseUrl).hostname);
  const allowed = new Set((options.allowHosts ?? []).map((host) => host.toLowerCase()));
  const trusted = (hostname: string) => localTrial || allowed.has(hostname.toLowerCase());
  const dispatcher =
    options.dispatcher ??
    (localTrial
      ? (fallback ?? getGlobalDispatcher())
      : new Agent({ connect: { lookup: guardedLookup(trusted, options.lookup) } }));
  return {
    localTrial,
    dispatcher,
    check(url) {
      if (url.protocol !== "https:" && url.protocol !== "http:") {
        throw new NoteTakerLinkRefusedError(
          `A result link is not an http(s) URL (${url.protocol}).`,
        );
      }
      if (trusted(url.hostname)) return;
      if (url.protocol !== "https:") {
        throw new NoteTakerLinkRefusedError(`A result link is not https (${url.host}).`);
      }
      if (isIpLiteral(url.hostname) && isBlockedAddress(url.hostname)) {
        throw new NoteTakerLinkRefusedError(`A result link points at ${url.hostname}.`);
      }
    },
  };
}

/** Whether a base URL's host is this machine or a private network: the emulator case. */
export function isLocalHostname(hostname: string): boolean {
  const name = hostname.toLowerCase();
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  return isIpLiteral(name) && isBlockedAddress(name);
}

/**
 * A `lookup` for `net.connect` that refuses a name when any of its addresses is blocked
 * (a mixed answer is as suspicious as a private one). Trusted names pass through untouched.
 */
export function guardedLookup(
  trusted: (hostname: string) => boolean,
  lookup: LookupFunction = dnsLookup as LookupFunction,
): LookupFunction {
  return (hostname, options, callback) => {
    if (trusted(hostname)) {
      lookup(hostname, options, callback);
      return;
    }
    lookup(hostname, { ...options, all: true }, (error, answer, family) => {
      if (error) {
        callback(error, "", 0);
        return;
      }
      const addresses = Array.isArray(answer) ? answer : [{ address: answer, family: family ?? 0 }];
      const blocked = addresses.find((entry) => isBlockedAddress(entry.address));
      const first = addresses[0];
      if (blocked !== undefined || first === undefined) {
        const where = blocked?.address ?? "no address";
        callback(new NoteTakerLinkRefusedError(`${hostname} resolves to ${where}.`), "", 0);
      } else if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}
