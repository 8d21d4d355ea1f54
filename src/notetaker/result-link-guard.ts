import { lookup as dnsLookup } from "node:dns";
import { BlockList, isIPv4, isIPv6, type LookupFunction } from "node:net";
import { Agent, type Dispatcher, getGlobalDispatcher } from "undici";
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

/** A result link may reach only public unicast addresses: it is untrusted input (SSRF). */

const BLOCKED_V4 = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // CGNAT shared space (Alibaba Cloud metadata is 100.100.100.200)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local: cloud metadata 169.254.169.254, ECS 169.254.170.2
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation (TEST-NET-1)
  ["192.88.99.0", 24], // 6to4 relay anycast (deprecated)
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation (TEST-NET-2)
  ["203.0.113.0", 24], // documentation (TEST-NET-3)
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and the broadcast address
] as const) {
  BLOCKED_V4.addSubnet(network, prefix, "ipv4");
}

// Only 2000::/3 is global unicast; everything outside it (loopback, unspecified, unique-local
// fc00::/7 with AWS metadata fd00:ec2::254, link-local, multicast, discard, local-use NAT64
// 64:ff9b:1::/48…) is refused before this list is consulted. These are the special ranges inside.
const BLOCKED_V6 = new BlockList();
for (const [network, prefix] of [
  ["2001::", 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4 (deprecated): tunnels to an IPv4 address of the sender's choosing
  ["3fff::", 20], // documentation (RFC 9637)
] as const) {
  BLOCKED_V6.addSubnet(network, prefix, "ipv6");
}

/** Whether `address` may not be fetched from; IPv4-mapped and NAT64 forms are judged as IPv4. */
export function isBlockedAddress(address: string): boolean {
  const ip = address.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  if (isIPv4(ip)) return BLOCKED_V4.check(ip, "ipv4");
  if (!isIPv6(ip)) return true;
  const bytes = ipv6Bytes(ip);
  const carried = embeddedIPv4(bytes);
  if (carried !== undefined) return BLOCKED_V4.check(carried, "ipv4");
  if (((bytes[0] ?? 0) & 0xe0) !== 0x20) return true;
  return BLOCKED_V6.check(ip, "ipv6");
}

/** Whether `hostname` (as in `URL.hostname`) is an IP literal rather than a name. */
export function isIpLiteral(hostname: string): boolean {
  const ip = hostname.replace(/^\[(.*)\]$/, "$1");
  return isIPv4(ip) || isIPv6(ip);
}

/** The IPv4 address inside an IPv4-mapped or NAT64 (RFC 6052 well-known prefix) address. */
function embeddedIPv4(bytes: Uint8Array): string | undefined {
  const zeros = (from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);
  const mapped = zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff;
  const nat64 =
    bytes[0] === 0x00 &&
    bytes[1] === 0x64 &&
    bytes[2] === 0xff &&
    bytes[3] === 0x9b &&
    zeros(4, 12);
  return mapped || nat64 ? bytes.subarray(12, 16).join(".") : undefined;
}

/** The 16 bytes of a valid IPv6 address (checked by `isIPv6` first), dotted tail included. */
function ipv6Bytes(ip: string): Uint8Array {
  let text = ip.toLowerCase();
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail !== null) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    const hex = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
    text = text.slice(0, tail.index) + hex;
  }
  const [head = "", rest] = text.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = rest === undefined || rest === "" ? [] : rest.split(":");
  const groups =
    rest === undefined
      ? left
      : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  const bytes = new Uint8Array(16);
  groups.forEach((group, index) => {
    const value = Number.parseInt(group, 16);
    bytes[index * 2] = value >> 8;
    bytes[index * 2 + 1] = value & 0xff;
  });
  return bytes;
}
