import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.ts";

describe("openStore", () => {
  it("opens memory://", async () => {
    const store = await openStore("memory://");
    expect(store.kind).toBe("memory");
    await store.close();
  });

  it.each([
    ["ftp://user:secret@host/x", /unsupported scheme "ftp:"/],
    ["postgres://user:secret@host/db", /unsupported scheme "postgres:"/],
    ["data/meeting-notes.sqlite", /has no scheme/],
    ["", /has no scheme/],
  ])("rejects %j with a clear message", async (url, message) => {
    const error = await openStore(url).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(message);
    expect(error?.message).toMatch(/sqlite:\/\/PATH, redis:\/\/HOST\[:PORT\].*memory:\/\//);
    expect(error?.message).not.toContain("secret");
  });

  it("asks for a path when sqlite:// has none", async () => {
    await expect(openStore("sqlite://")).rejects.toThrow(/needs a file path/);
  });

  it("rejects a malformed Redis URL without quoting it", async () => {
    const error = await openStore("redis://user:secret@[bad").then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/not a valid Redis URL/);
    expect(error?.message).not.toContain("secret");
  });
});
