import { lookup as dnsLookup } from "node:dns";
import type { LookupFunction } from "node:net";
import { Agent, type Dispatcher, getGlobalDispatcher } from "undici";
import { isBlockedAddress, isIpLiteral } from "./blocked-address.ts";
import { NoteTakerLinkRefusedError } from "./errors.ts";

export interface ResultLinkOptions {
  /** Hosts an operator trusts (RESULT_LINK_HOSTS): any address and plain http allowed. */
  allowHosts?: readonly string[];
  /** Tests inject answers; default `dns.lookup`. */
  lookup?: LookupFunction;
  /** Replaces the guarded agent (tests); the URL checks still apply. */
  dispatcher?: Dispatcher;
}

export interface ResultLinkGuard {
  /** Local trial: the Note Service itself is on this machine or network, so links may be too. */
  readonly localTrial: boolean;
  check(url: URL): void;
  /** Connects only to allowed addresses, judged after DNS resolution. */
  readonly dispatcher: Dispatcher;
}

/**
 * Result links are fetched over https from public addresses only, unless the Note Service is
 * itself local (the emulator, tests) or the host allowlisted. The address is judged at
 * connect time, on what DNS answered then, so DNS rebinding cannot slip through.
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

/** A `lookup` that refuses a name when any of its addresses is blocked; trusted names pass. */
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
