import { describe, expect, it } from "vitest";
import { isBlockedAddress, isIpLiteral } from "../../src/notetaker/result-link-guard.ts";

describe("isBlockedAddress", () => {
  it.each([
    ["0.0.0.0", "this network"],
    ["0.255.255.255", "this network"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["100.64.0.1", "CGNAT"],
    ["100.100.100.200", "CGNAT (Alibaba Cloud metadata)"],
    ["100.127.255.255", "CGNAT"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["169.254.0.1", "link-local"],
    ["169.254.169.254", "cloud metadata"],
    ["169.254.170.2", "ECS task metadata"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.0.0.8", "IETF protocol assignments"],
    ["192.0.2.10", "documentation"],
    ["192.88.99.1", "6to4 relay"],
    ["192.168.1.1", "private"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.9", "documentation"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "broadcast"],
  ])("refuses IPv4 %s (%s)", (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each([
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback, as URL.hostname writes it"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local with a zone"],
    ["fc00::1", "unique-local"],
    ["fd12:3456:789a::1", "unique-local"],
    ["fd00:ec2::254", "AWS metadata"],
    ["ff02::1", "multicast"],
    ["100::1", "discard"],
    ["64:ff9b:1::1", "local-use NAT64"],
    ["::127.0.0.1", "IPv4-compatible (deprecated)"],
    ["2001::1", "Teredo"],
    ["2001:2::1", "benchmarking"],
    ["2001:db8::1", "documentation"],
    ["2002:c000:0204::1", "6to4"],
    ["3fff::1", "documentation"],
    ["fec0::1", "site-local (deprecated)"],
  ])("refuses IPv6 %s (%s)", (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each([
    ["::ffff:127.0.0.1", "mapped loopback, dotted"],
    ["::ffff:7f00:1", "mapped loopback, hex"],
    ["::FFFF:A9FE:A9FE", "mapped metadata, upper case"],
    ["0:0:0:0:0:ffff:10.0.0.1", "mapped private, uncompressed"],
    ["[::ffff:192.168.0.1]", "mapped private, bracketed"],
    ["64:ff9b::127.0.0.1", "NAT64 loopback"],
    ["64:ff9b::a9fe:a9fe", "NAT64 metadata"],
    ["64:ff9b::10.1.2.3", "NAT64 private"],
  ])("judges %s as the IPv4 address it carries (%s)", (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each([
    "93.184.216.34",
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "192.169.0.1",
    "2606:4700:4700::1111",
    "2a00:1450:4001:82a::200e",
    "[2606:4700::6810:84e5]",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
    "64:ff9b::808:808",
  ])("allows the public address %s", (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });

  it("refuses what is not an IP address at all", () => {
    for (const text of ["", "localhost", "example.com", "1.2.3", "::ffff:1.2.3.256", "[::1"]) {
      expect(isBlockedAddress(text)).toBe(true);
    }
  });
});

describe("isIpLiteral", () => {
  it("tells IP literals (as URL.hostname writes them) from names", () => {
    expect(isIpLiteral("127.0.0.1")).toBe(true);
    expect(isIpLiteral("[::1]")).toBe(true);
    expect(isIpLiteral(new URL("http://[::ffff:10.0.0.1]/").hostname)).toBe(true);
    expect(isIpLiteral(new URL("http://2130706433/").hostname)).toBe(true);
    expect(isIpLiteral("localhost")).toBe(false);
    expect(isIpLiteral("files.example.com")).toBe(false);
  });
});
