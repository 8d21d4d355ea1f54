import type { LookupAddress } from "node:dns";
import { createServer, type Server } from "node:http";
import type { AddressInfo, LookupFunction } from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NoteTakerLinkRefusedError } from "../../src/notetaker/index.ts";
import {
  createResultLinkGuard,
  guardedLookup,
  isLocalHostname,
} from "../../src/notetaker/result-link-guard.ts";

const STRICT_BASE = "https://notes.example.com/api/v1/third-party/note-taker";

/** A lookup that answers from a table (a list per call, for rebinding), recording each call. */
function fakeLookup(answers: Record<string, string[][]>) {
  const calls: string[] = [];
  const lookup: LookupFunction = (hostname, options, callback) => {
    calls.push(hostname);
    const queue = answers[hostname];
    const next = queue && queue.length > 1 ? queue.shift() : queue?.[0];
    if (next === undefined) {
      callback(
        Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }),
        "",
        0,
      );
      return;
    }
    const all: LookupAddress[] = next.map((address) => ({
      address,
      family: address.includes(":") ? 6 : 4,
    }));
    if (options.all) callback(null, all);
    else callback(null, all[0]?.address ?? "", all[0]?.family ?? 4);
  };
  return { lookup, calls };
}

/** Runs a lookup the way `net.connect` does, resolving with its answer or its error. */
function resolveWith(lookup: LookupFunction, hostname: string, all = true) {
  return new Promise<string[]>((resolve, reject) => {
    lookup(hostname, { all }, (error, answer) => {
      if (error) reject(error);
      else resolve(Array.isArray(answer) ? answer.map((a) => a.address) : [answer]);
    });
  });
}

const refused = (run: () => unknown) => expect(run).toThrow(NoteTakerLinkRefusedError);

describe("the URL check", () => {
  const guard = createResultLinkGuard(STRICT_BASE, { allowHosts: ["Store.Internal"] }, undefined);

  it("allows https links to host names and public addresses", () => {
    expect(guard.localTrial).toBe(false);
    guard.check(new URL("https://files.example.com/d.json?sig=1"));
    guard.check(new URL("https://93.184.216.34/d.json"));
    guard.check(new URL("https://[2606:4700::6810:84e5]/d.json"));
  });

  it("refuses plain http, other schemes, and IP literals that are not public", () => {
    refused(() => guard.check(new URL("http://files.example.com/d.json")));
    refused(() => guard.check(new URL("ftp://files.example.com/d.json")));
    refused(() => guard.check(new URL("file:///etc/passwd")));
    for (const host of ["127.0.0.1", "10.0.0.8", "169.254.169.254", "[::1]", "[fd00:ec2::254]"]) {
      refused(() => guard.check(new URL(`https://${host}/latest/meta-data/`)));
    }
    // The URL parser turns these spellings into the loopback and mapped forms.
    refused(() => guard.check(new URL("https://2130706433/")));
    refused(() => guard.check(new URL("https://0x7f.1/")));
    refused(() => guard.check(new URL("https://[::ffff:127.0.0.1]/")));
    refused(() => guard.check(new URL("https://[64:ff9b::a9fe:a9fe]/")));
  });

  it("allows an allowlisted host over http, matching its name exactly and in any case", () => {
    guard.check(new URL("http://store.internal:9000/d.json"));
    guard.check(new URL("http://STORE.internal/d.json"));
    refused(() => guard.check(new URL("http://files.store.internal/d.json")));
    refused(() => guard.check(new URL("http://store.internal.evil.test/d.json")));
  });

  it("allows http and any address when the Note Service itself is local (a trial)", () => {
    for (const base of [
      "http://127.0.0.1:4010/api/v1/third-party/note-taker",
      "http://localhost:4010/api",
      "http://[::1]:4010/api",
      "http://192.168.1.20/api",
    ]) {
      const trial = createResultLinkGuard(base, {}, undefined);
      expect(trial.localTrial).toBe(true);
      trial.check(new URL("http://127.0.0.1:4011/files/dialog/1.json"));
      trial.check(new URL("http://10.0.0.5/d.json"));
    }
  });

  it("tells a local Note Service from one on the internet", () => {
    expect(isLocalHostname("localhost")).toBe(true);
    expect(isLocalHostname("notes.localhost")).toBe(true);
    expect(isLocalHostname("10.1.2.3")).toBe(true);
    expect(isLocalHostname("notes.example.com")).toBe(false);
    expect(isLocalHostname("notes.test")).toBe(false);
    expect(isLocalHostname("93.184.216.34")).toBe(false);
  });
});

describe("the lookup at connect time", () => {
  const untrusted = () => false;

  it("passes public answers through, in both callback forms", async () => {
    const { lookup } = fakeLookup({ "files.example.com": [["93.184.216.34", "2606:4700::1"]] });
    const guarded = guardedLookup(untrusted, lookup);
    expect(await resolveWith(guarded, "files.example.com")).toEqual([
      "93.184.216.34",
      "2606:4700::1",
    ]);
    expect(await resolveWith(guarded, "files.example.com", false)).toEqual(["93.184.216.34"]);
  });

  it("refuses a name that resolves to a private address, or to any blocked one among several", async () => {
    const { lookup } = fakeLookup({
      "internal.example.com": [["10.0.0.12"]],
      "metadata.example.com": [["::ffff:169.254.169.254"]],
      "mixed.example.com": [["93.184.216.34", "127.0.0.1"]],
    });
    const guarded = guardedLookup(untrusted, lookup);
    for (const name of ["internal.example.com", "metadata.example.com", "mixed.example.com"]) {
      await expect(resolveWith(guarded, name)).rejects.toBeInstanceOf(NoteTakerLinkRefusedError);
    }
  });

  it("judges every connection on its own answer, so rebinding to a private address is refused", async () => {
    const { lookup, calls } = fakeLookup({
      "rebind.example.com": [["93.184.216.34"], ["127.0.0.1"]],
    });
    const guarded = guardedLookup(untrusted, lookup);
    expect(await resolveWith(guarded, "rebind.example.com")).toEqual(["93.184.216.34"]);
    await expect(resolveWith(guarded, "rebind.example.com")).rejects.toBeInstanceOf(
      NoteTakerLinkRefusedError,
    );
    expect(calls).toEqual(["rebind.example.com", "rebind.example.com"]);
  });

  it("hands DNS failures on as they are, and lets trusted names resolve anywhere", async () => {
    const { lookup } = fakeLookup({ "store.internal": [["10.0.0.7"]] });
    const guarded = guardedLookup((host) => host === "store.internal", lookup);
    expect(await resolveWith(guarded, "store.internal")).toEqual(["10.0.0.7"]);
    await expect(resolveWith(guarded, "nowhere.example.com")).rejects.toMatchObject({
      code: "ENOTFOUND",
    });
  });
});

describe("the guarded agent", () => {
  let server: Server;
  let port: number;
  const hits: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(`${req.headers.host}${req.url}`);
      res.end("internal secret");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("never connects to a name that resolves to loopback, yet reaches an allowlisted one", async () => {
    const { lookup } = fakeLookup({
      "evil.example.com": [["127.0.0.1"]],
      "store.internal": [["127.0.0.1"]],
    });
    const guard = createResultLinkGuard(
      STRICT_BASE,
      { allowHosts: ["store.internal"], lookup },
      undefined,
    );
    const evil = new URL(`https://evil.example.com:${port}/secret`);
    guard.check(evil);
    await expect(request(evil, { dispatcher: guard.dispatcher })).rejects.toBeInstanceOf(
      NoteTakerLinkRefusedError,
    );
    expect(hits).toEqual([]);

    const store = new URL(`http://store.internal:${port}/d.json`);
    guard.check(store);
    const response = await request(store, { dispatcher: guard.dispatcher });
    expect(await response.body.text()).toBe("internal secret");
    expect(hits).toEqual([`store.internal:${port}/d.json`]);
  });
});
