import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTextCapped } from "../../src/notetaker/api-call.ts";
import {
  NoteTakerLinkRefusedError,
  NoteTakerProtocolError,
  NoteTakerTooLargeError,
} from "../../src/notetaker/index.ts";
import { BASE_PATH, mockedClient } from "../../support/helpers/note-taker-mock.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

const MIB = 1024 * 1024;
const dialog = [
  { speaker_id: "speaker_1", start_seconds: 0, end_seconds: 4.2, text: "Bắt đầu nhé." },
  { speaker_id: "speaker_2", start_seconds: 4.2, end_seconds: 9, text: "Budget first." },
];
const redirectTo = (location: string) => ({ headers: { location } });

let temp: Awaited<ReturnType<typeof makeTempDir>>;
beforeAll(async () => {
  temp = await makeTempDir();
});
afterAll(() => temp.cleanup());

describe("redirects of result links", () => {
  it("refuses a redirect from https to http and never fetches it, without retrying", async () => {
    const { origin, client, agent, waits } = mockedClient();
    origin("https://files.example.com")
      .intercept({ path: "/r/dialog/1" })
      .reply(302, "", redirectTo("http://files.example.com/d.json"));
    origin("http://files.example.com").intercept({ path: "/d.json" }).reply(200, dialog);
    await expect(client.fetchDialog("https://files.example.com/r/dialog/1")).rejects.toBeInstanceOf(
      NoteTakerLinkRefusedError,
    );
    expect(agent.pendingInterceptors().map((i) => i.origin)).toEqual(["http://files.example.com"]);
    expect(waits).toEqual([]);
  });

  it.each([
    "https://10.0.0.5/d.json",
    "https://169.254.169.254/latest/meta-data/",
    "https://[::ffff:127.0.0.1]/d.json",
    "https://[64:ff9b::c0a8:1]/d.json",
  ])("refuses a redirect from a public host to %s", async (location) => {
    const { origin, client } = mockedClient();
    origin("https://files.example.com")
      .intercept({ path: "/r/dialog/1" })
      .reply(302, "", redirectTo(location));
    await expect(client.fetchDialog("https://files.example.com/r/dialog/1")).rejects.toBeInstanceOf(
      NoteTakerLinkRefusedError,
    );
  });

  it("refuses a DOCX link on a private address before any request", async () => {
    const { client, agent } = mockedClient();
    const dest = join(temp.dir, "internal.docx");
    await expect(
      client.downloadDocx("http://127.0.0.1:8080/admin/backup.docx", dest),
    ).rejects.toBeInstanceOf(NoteTakerLinkRefusedError);
    expect(agent.pendingInterceptors()).toEqual([]);
  });

  it("follows a redirect to an allowlisted internal host, over http too", async () => {
    const { origin, client } = mockedClient({
      resultLinks: { allowHosts: ["store.internal"] },
    });
    origin("https://files.example.com")
      .intercept({ path: "/r/dialog/1" })
      .reply(302, "", redirectTo("http://store.internal:9000/d.json?sig=1"));
    origin("http://store.internal:9000")
      .intercept({ path: "/d.json?sig=1" })
      .reply(200, JSON.stringify(dialog));
    expect(await client.fetchDialog("https://files.example.com/r/dialog/1")).toEqual(dialog);
  });

  it("follows http links to loopback when the Note Service itself is local (a trial)", async () => {
    const { origin, client } = mockedClient({
      baseUrl: `http://127.0.0.1:4010${BASE_PATH}`,
    });
    origin("http://127.0.0.1:4011")
      .intercept({ path: "/r/dialog/1" })
      .reply(302, "", redirectTo("/files/dialog/1.json?sig=1"));
    origin("http://127.0.0.1:4011")
      .intercept({ path: "/files/dialog/1.json?sig=1" })
      .reply(200, JSON.stringify(dialog));
    expect(await client.fetchDialog("http://127.0.0.1:4011/r/dialog/1")).toEqual(dialog);
  });

  it("gives up after five redirects", async () => {
    const { origin, client } = mockedClient();
    const files = origin("https://files.example.com");
    for (let hop = 0; hop < 6; hop++) {
      files.intercept({ path: `/hop/${hop}` }).reply(302, "", redirectTo(`/hop/${hop + 1}`));
    }
    const error = await client.fetchDialog("https://files.example.com/hop/0").catch((e) => e);
    expect(error).toBeInstanceOf(NoteTakerProtocolError);
    expect((error as Error).message).toMatch(/more than 5 times/);
  });
});

describe("caps on result files", () => {
  it("refuses a dialog that declares more than 20 MiB before reading it", async () => {
    const { origin, client } = mockedClient();
    origin("https://files.example.com")
      .intercept({ path: "/d.json" })
      .reply(200, "[]", { headers: { "content-length": String(20 * MIB + 1) } });
    const error = await client.fetchDialog("https://files.example.com/d.json").catch((e) => e);
    expect(error).toBeInstanceOf(NoteTakerTooLargeError);
    expect(error).toMatchObject({ what: "dialog", maxBytes: 20 * MIB });
  });

  it("stops reading a dialog the moment it passes the cap, and does not retry", async () => {
    const { origin, client, waits } = mockedClient({ maxDialogBytes: 1000 });
    origin("https://files.example.com").intercept({ path: "/d.json" }).reply(200, "x".repeat(1001));
    await expect(client.fetchDialog("https://files.example.com/d.json")).rejects.toMatchObject({
      what: "dialog",
      maxBytes: 1000,
    });
    expect(waits).toEqual([]);
  });

  it("refuses a DOCX over its cap", async () => {
    const { origin, client } = mockedClient({ maxDocxBytes: 100 });
    const docx = Buffer.concat([Buffer.from("PK\u0003\u0004", "latin1"), Buffer.alloc(200, 7)]);
    origin("https://files.example.com").intercept({ path: "/n.docx" }).reply(200, docx);
    await expect(
      client.downloadDocx("https://files.example.com/n.docx", join(temp.dir, "big.docx")),
    ).rejects.toMatchObject({ what: "docx", maxBytes: 100 });
  });
});

describe("readTextCapped", () => {
  /** A body that hands out the given chunks and records whether it was destroyed. */
  function bodyOf(chunks: Buffer[]) {
    const state = { destroyed: false, read: 0 };
    return {
      state,
      async *[Symbol.asyncIterator]() {
        for (const chunk of chunks) {
          state.read++;
          yield chunk;
        }
      },
      destroy() {
        state.destroyed = true;
      },
    };
  }

  it("decodes characters split across chunks", async () => {
    const bytes = Buffer.from("Tiếng Việt — ổn định 🎙️", "utf8");
    const chunks = [...bytes].map((byte) => Buffer.from([byte]));
    expect(await readTextCapped(bodyOf(chunks), 1000, () => new Error("cap"))).toBe(
      "Tiếng Việt — ổn định 🎙️",
    );
  });

  it("stops at the first chunk past the cap and destroys the body", async () => {
    const body = bodyOf([Buffer.alloc(600), Buffer.alloc(600), Buffer.alloc(600)]);
    await expect(readTextCapped(body, 1000, () => new Error("cap"))).rejects.toThrow("cap");
    expect(body.state).toEqual({ destroyed: true, read: 2 });
  });
});
