import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_AUDIO_BYTES, SUPPORTED_AUDIO_FORMATS } from "../../src/recordings/index.ts";
import { classifyFile, type SlackFile } from "../../src/slack/directory/recording-file.ts";
import type { SlackMode } from "../../support/e2e/stack.ts";
import {
  ALICE,
  BOB,
  CHANNEL,
  eventually,
  SIGNING_SECRET,
  statusMessage,
} from "../../support/e2e/stack.ts";
import {
  appHomeOpenedEvent,
  fileSharedEvent,
  fileShareMessageEvent,
} from "../../support/fake-slack/slack-payloads.ts";
import { sendEvent } from "../../support/fake-slack/slack-request.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import {
  controlChar,
  extraFields,
  hugeText,
  junkJson,
  nastyText,
  notAString,
  uniqueId,
} from "../../support/hostile/arbitraries.ts";
import {
  activeJobCount,
  botReplies,
  createdJobFiles,
  expectAnswered,
  expectInertText,
  expectProcessIntact,
  type HostileStack,
  runsIn,
  STRANGER_TEAM,
  startHostileStack,
  timed,
  within,
} from "../../support/hostile/hostile-stack.ts";
import { activitySince, NOTHING_DONE } from "../../support/hostile/other-installs.ts";

/**
 * Hostile Events API deliveries against the real app: `message` events with junk files,
 * wrong subtypes and missing fields, unknown event types, `file_shared` for unknown files.
 *
 * Cases: 200 (file_share messages) + 200 (odd envelopes) = 400 generated cases (a third in
 * OAuth mode), plus 6 example-based regression tests of bugs these runs found; in OAuth
 * mode, events claiming installs that never were.
 */
export function slackEventsSuite(mode: SlackMode): void {
  let h: HostileStack;
  beforeAll(async () => {
    h = await startHostileStack(mode);
  });
  afterAll(async () => {
    await expectProcessIntact(h);
    await h.stop();
  });

  const USERS = [ALICE, BOB, "U0NOBODY1"];

  // Installs by OAuth: an event is the install's its envelope names (team, org, org-wide).
  if (mode === "oauth")
    describe("events of other installs (oauth mode)", () => {
      it("refuses with 401 an event signed with the app's secret for a workspace or org that never installed it, and does nothing", async () => {
        const { stack } = h;
        // A real recording, shared in the stranger's own workspace and in ours.
        const stranger = stack.fake.team(STRANGER_TEAM);
        stranger.addUser({
          id: ALICE,
          name: "alice",
          real_name: "Alice Elsewhere",
          locale: "en-US",
        });
        stranger.addChannel({ id: "C0STRANGE1", name: "strange", members: [ALICE] });
        const theirs = stranger.addFile({
          name: "strange.mp3",
          bytes: recordingBytes("strange.mp3", 512, 1),
          user: ALICE,
        });
        const theirTs = stranger.shareFile(theirs, { channel: "C0STRANGE1", user: ALICE }).ts;
        const ours = stack.fake.addFile({
          name: "ours.mp3",
          bytes: recordingBytes("ours.mp3", 512, 1),
          user: ALICE,
        });
        const ourTs = stack.fake.shareFile(ours, { channel: CHANNEL, user: ALICE }).ts;
        const done = await activitySince(stack);
        const elsewhere = { enterpriseId: "E0STRANGE", isEnterpriseInstall: true };
        const sent = [
          [
            fileShareMessageEvent(theirs, { channel: "C0STRANGE1", user: ALICE, ts: theirTs }),
            { teamId: STRANGER_TEAM },
          ],
          [
            fileSharedEvent(theirs.id, { channel: "C0STRANGE1", user: ALICE }),
            { teamId: STRANGER_TEAM },
          ],
          [appHomeOpenedEvent(ALICE), { teamId: STRANGER_TEAM }],
          [
            fileShareMessageEvent(theirs, { channel: "C0STRANGE1", user: ALICE, ts: theirTs }),
            { teamId: STRANGER_TEAM, ...elsewhere },
          ],
          // Our workspace's upload, claimed for an org-wide install that never was.
          [
            fileShareMessageEvent(ours, { channel: CHANNEL, user: ALICE, ts: ourTs }),
            { teamId: stack.fake.teamId, ...elsewhere },
          ],
          [appHomeOpenedEvent(ALICE), { teamId: stack.fake.teamId, ...elsewhere }],
        ] as const;
        const statuses = await Promise.all(
          sent.map(
            async ([event, install]) =>
              (await sendEvent(stack.url, SIGNING_SECRET, event, install)).status,
          ),
        );
        expect(statuses).toEqual(sent.map(() => 401));
        expect(await done()).toEqual(NOTHING_DONE);
        const created = new Set(createdJobFiles(stack));
        expect([theirs.id, ours.id].filter((id) => created.has(id))).toEqual([]);
      });
    });
  const OTHER_EXTENSIONS = [
    "txt",
    "pdf",
    "png",
    "docx",
    "mov",
    "zip",
    "exe",
    "",
    "mp3.txt",
    "mp33",
  ];
  const OTHER_FILETYPES = ["text", "pdf", "png", "binary", "docx", "mov", "", "quicktime"];
  const OTHER_MIMETYPES = [
    "text/plain",
    "application/pdf",
    "image/png",
    "application/octet-stream",
    "video/quicktime",
    "",
    "text/html; charset=utf-8",
  ];
  /** The fields of a file object the app reads; junk extra fields never take these names. */
  const FILE_FIELDS = [
    "id",
    "name",
    "title",
    "filetype",
    "mimetype",
    "size",
    "url_private_download",
    "url_private",
    "file_access",
    "mode",
    "media_display_type",
    "user",
  ];

  /**
   * A file name: a hostile stem plus the extension chosen. The stem holds no dot and no
   * slash and is never empty, so the name's extension is the one chosen (".mp3" alone is a
   * dotfile without extension, and "a/.mp3" too).
   */
  function fileName(extensions: fc.Arbitrary<string>) {
    return fc.tuple(fc.oneof(nastyText(60), hugeText), extensions).map(([stem, ext]) => {
      const clean = `f${stem.replaceAll(".", "·").replaceAll("/", "∕")}`;
      return ext === "" ? clean : `${clean}.${ext}`;
    });
  }

  const otherFile = fc.record({
    kind: fc.constant("other" as const),
    name: fileName(fc.constantFrom(...OTHER_EXTENSIONS)),
    filetype: fc.constantFrom(...OTHER_FILETYPES),
    mimetype: fc.constantFrom(...OTHER_MIMETYPES),
    size: fc.nat(),
    extra: extraFields(FILE_FIELDS),
  });

  /** A recording the app must refuse with a reason: empty, or over 300 MB. */
  const refusedFile = fc.record({
    kind: fc.constant("refused" as const),
    name: fileName(
      fc
        .tuple(fc.constantFrom(...SUPPORTED_AUDIO_FORMATS), fc.boolean())
        .map(([ext, upper]) => (upper ? ext.toUpperCase() : ext)),
    ),
    filetype: fc.constantFrom(...OTHER_FILETYPES, "mp3", "m4a"),
    mimetype: fc.constantFrom(...OTHER_MIMETYPES, "audio/mpeg"),
    size: fc.oneof(
      fc.constant(0),
      fc.integer({ min: MAX_AUDIO_BYTES + 1, max: Number.MAX_SAFE_INTEGER }),
    ),
    extra: extraFields(FILE_FIELDS),
  });

  /** Not a file object Slack would send: the whole message is to be ignored. */
  const junkFile = fc.oneof(
    fc.record({ kind: fc.constant("junk" as const), value: junkJson }),
    fc.record({
      kind: fc.constant("junk" as const),
      breaks: fc.constantFrom(
        "no_id",
        "empty_id",
        "numeric_id",
        "negative_size",
        "fraction_size",
        "string_size",
        "unsafe_size",
        "null_name",
        "numeric_url",
      ),
      name: fileName(fc.constantFrom("mp3", "txt")),
    }),
  );

  type FileCase =
    | {
        kind: "other" | "refused";
        name: string;
        filetype: string;
        mimetype: string;
        size: number;
        extra: Record<string, unknown>;
      }
    | { kind: "junk"; value: unknown }
    | { kind: "junk"; breaks: string; name: string };

  function fileObject(spec: FileCase, id: string, origin: string): unknown {
    const url = `${origin}/files-pri/T0FAKE-${id}/download/f`;
    if (spec.kind !== "junk") {
      return {
        ...spec.extra,
        id,
        name: spec.name,
        title: spec.name,
        filetype: spec.filetype,
        mimetype: spec.mimetype,
        size: spec.size,
        mode: "hosted",
        url_private: url,
        url_private_download: url,
      };
    }
    if ("value" in spec) return spec.value;
    const base: Record<string, unknown> = {
      id,
      name: spec.name,
      size: 10,
      url_private: url,
      url_private_download: url,
    };
    switch (spec.breaks) {
      case "no_id":
        delete base.id;
        break;
      case "empty_id":
        base.id = "";
        break;
      case "numeric_id":
        base.id = 42;
        break;
      case "negative_size":
        base.size = -1;
        break;
      case "fraction_size":
        base.size = 1.5;
        break;
      case "string_size":
        base.size = "10";
        break;
      case "unsafe_size":
        base.size = 2 ** 60;
        break;
      case "null_name":
        base.name = null;
        break;
      default:
        base.url_private_download = 7;
    }
    return base;
  }

  describe(`hostile message events (${mode} mode)`, () => {
    it("answers every file_share at once, makes no job of non-recordings, and says one thing only about media it cannot use", async () => {
      const activeBefore = await activeJobCount(h.stack);
      const ids: string[] = [];
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.oneof(otherFile, otherFile, refusedFile, junkFile), {
            minLength: 1,
            maxLength: 4,
          }),
          fc.oneof(fc.constant(""), nastyText(200), hugeText),
          fc.constantFrom(...USERS),
          fc.boolean(),
          extraFields([
            "type",
            "subtype",
            "channel",
            "user",
            "ts",
            "files",
            "bot_id",
            "thread_ts",
            "text",
          ]),
          async (specs: FileCase[], text, user, inThread, extra) => {
            const { stack } = h;
            const files = specs.map((spec) => {
              const id = uniqueId("FH");
              ids.push(id);
              return fileObject(spec, id, stack.fake.origin);
            });
            const parent = stack.fake.addMessage({ channel: CHANNEL, user: ALICE, text: "" });
            const event = {
              ...extra,
              type: "message",
              subtype: "file_share",
              text,
              files,
              upload: true,
              user,
              ts: parent.ts,
              ...(inThread ? { thread_ts: parent.ts } : {}),
              channel: CHANNEL,
              event_ts: parent.ts,
              channel_type: "channel",
            };
            const answer = await timed((signal) =>
              sendEvent(stack.url, SIGNING_SECRET, event, { teamId: stack.fake.teamId, signal }),
            );
            expectAnswered(answer, "file_share");
            expect(answer.res.status).toBe(200);

            // Quiet by default: one reply for the recordings refused and the audio or video it
            // cannot use; nothing for documents, images and the like (nor for the whole
            // message when one file is junk).
            const ignored = specs.some((s) => s.kind === "junk");
            const told = files.some((f, i) => {
              const spec = specs[i];
              if (spec?.kind === "refused") return true;
              return spec?.kind === "other" && classifyFile(f as SlackFile).kind !== "other";
            });
            const expected = ignored || !told ? 0 : 1;
            if (expected === 0) return;
            const replies = await within(() => {
              const found = botReplies(stack, parent.ts);
              return found.length >= expected ? found : undefined;
            });
            const seen = botReplies(stack, parent.ts).map((m) => m.text);
            expect(
              replies,
              `expected ${expected} replies, saw ${JSON.stringify(seen)}`,
            ).toBeDefined();
            expect(replies).toHaveLength(expected);
            for (const reply of replies ?? []) expectInertText(reply.text, "the reply");
          },
        ),
        { numRuns: runsIn(mode, 200) },
      );
      // Whatever was still running settles; then not one of those files became a job.
      await h.stack.settled();
      const created = new Set(createdJobFiles(h.stack));
      expect(ids.filter((id) => created.has(id))).toEqual([]);
      expect(await activeJobCount(h.stack)).toBe(activeBefore);
    }, 60_000);

    /** Envelopes the app must ignore, some carrying a real recording that must not become a job. */
    const oddEvent = fc.oneof(
      fc.record({
        shape: fc.constant("wrong_subtype"),
        subtype: fc.oneof(
          fc.constantFrom(
            "bot_message",
            "message_changed",
            "message_deleted",
            "thread_broadcast",
            "channel_join",
            "file_comment",
            "me_message",
            "FILE_SHARE",
            "file_share ",
          ),
          nastyText(20),
        ),
      }),
      fc.record({
        shape: fc.constant("bot_upload"),
        botId: fc.string({ minLength: 1, maxLength: 12 }),
      }),
      fc.record({
        shape: fc.constant("broken_field"),
        field: fc.constantFrom("channel", "user", "ts"),
        value: fc.oneof(fc.constant(undefined), fc.constant(null), fc.constant(""), notAString),
      }),
      fc.record({
        shape: fc.constant("broken_files"),
        files: fc.oneof(fc.constant(undefined), fc.constant([]), fc.constant([null]), notAString),
      }),
      fc.record({
        shape: fc.constant("unknown_type"),
        type: fc.oneof(
          fc.constantFrom(
            "reaction_added",
            "member_joined_channel",
            "message.im",
            "file_created",
            "tokens_revoked",
          ),
          fc.string({ minLength: 1, maxLength: 20 }),
        ),
        extra: extraFields(["type"]),
      }),
      fc.record({
        shape: fc.constant("file_shared_unknown"),
        fileId: fc.oneof(fc.constantFrom("F0NOTHERE1", "F", "../F1"), nastyText(40)),
        channel: fc.oneof(fc.constant(CHANNEL), nastyText(20)),
        user: fc.oneof(fc.constant(ALICE), nastyText(20)),
      }),
      fc.record({
        shape: fc.constant("app_home"),
        user: fc.oneof(fc.constant(ALICE), nastyText(20)),
        tab: fc.oneof(fc.constantFrom("home", "messages", "about"), nastyText(10)),
      }),
      fc.record({
        shape: fc.constant("huge_text"),
        text: fc.oneof(hugeText, nastyText(500)),
        control: controlChar,
      }),
    );

    it("answers odd and unknown events at once and makes no job of them", async () => {
      const activeBefore = await activeJobCount(h.stack);
      const realIds: string[] = [];
      await fc.assert(
        fc.asyncProperty(oddEvent, async (odd) => {
          const { stack } = h;
          const recording = stack.fake.addFile({
            name: "odd-envelope.mp3",
            bytes: recordingBytes("odd-envelope.mp3", 512, 1),
            user: ALICE,
          });
          realIds.push(recording.id);
          const parent = stack.fake.addMessage({ channel: CHANNEL, user: ALICE, text: "" });
          const message: Record<string, unknown> = {
            type: "message",
            subtype: "file_share",
            text: "",
            files: [recording],
            user: ALICE,
            ts: parent.ts,
            channel: CHANNEL,
            event_ts: parent.ts,
          };
          let event: Record<string, unknown>;
          switch (odd.shape) {
            case "wrong_subtype":
              event = { ...message, subtype: odd.subtype };
              break;
            case "bot_upload":
              event = { ...message, bot_id: odd.botId };
              break;
            case "broken_field":
              event = { ...message, [odd.field]: odd.value };
              break;
            case "broken_files":
              event = { ...message, files: odd.files };
              break;
            case "unknown_type":
              event = { ...odd.extra, type: odd.type };
              break;
            case "file_shared_unknown":
              event = {
                type: "file_shared",
                file_id: odd.fileId,
                channel_id: odd.channel,
                user_id: odd.user,
                file: { id: odd.fileId },
                event_ts: parent.ts,
              };
              break;
            case "app_home":
              event = { type: "app_home_opened", user: odd.user, channel: "D0HOME", tab: odd.tab };
              break;
            default:
              event = {
                type: "message",
                text: `${odd.text}${odd.control}`,
                user: ALICE,
                ts: parent.ts,
                channel: CHANNEL,
              };
          }
          const answer = await timed((signal) =>
            sendEvent(stack.url, SIGNING_SECRET, event, { teamId: stack.fake.teamId, signal }),
          );
          expectAnswered(answer, odd.shape);
        }),
        { numRuns: runsIn(mode, 200) },
      );
      await h.stack.settled();
      const created = new Set(createdJobFiles(h.stack));
      expect(realIds.filter((id) => created.has(id))).toEqual([]);
      expect(await activeJobCount(h.stack)).toBe(activeBefore);
    }, 60_000);
  });

  /** A host that is not Slack's, recording what it is sent. */
  async function foreignHost(): Promise<{
    origin: string;
    auth: (string | undefined)[];
    server: Server;
  }> {
    const auth: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      auth.push(req.headers.authorization);
      req.resume();
      res.writeHead(404, { "content-type": "text/plain" }).end("no");
    });
    // 127.0.0.2: loopback too, but not the fake Slack's host (127.0.0.1) — the app tells
    // Slack's hosts by name, and a port of Slack's own host would still count as Slack's.
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.2", resolve));
    return { origin: `http://127.0.0.2:${(server.address() as AddressInfo).port}`, auth, server };
  }

  /** Shares `files` in a new message of the channel, as Slack delivers it; returns its ts. */
  async function share(files: unknown[]) {
    const { stack } = h;
    const parent = stack.fake.addMessage({ channel: CHANNEL, user: ALICE, text: "" });
    const event = {
      type: "message",
      subtype: "file_share",
      text: "",
      files,
      user: ALICE,
      ts: parent.ts,
      channel: CHANNEL,
      event_ts: parent.ts,
    };
    const sent = await sendEvent(stack.url, SIGNING_SECRET, event, { teamId: stack.fake.teamId });
    expect(sent.status).toBe(200);
    return parent.ts;
  }

  describe.concurrent(`regressions: bugs the hostile event runs found (${mode} mode)`, () => {
    it("a recording whose name holds a control character goes to the Note Service under a safe name, and nothing escapes (the upload used to end the process)", async () => {
      const file = h.stack.fake.addFile({
        name: "weekly\u0001sync.mp3",
        bytes: recordingBytes("weekly.mp3"),
        user: ALICE,
      });
      await share([file]);
      try {
        // The name is made safe before it is sent (it used to be refused by the service)…
        const submitted = await within(
          () =>
            h.stack.emulator.stats.audioSubmissions.find((s) => s.filename === "weeklysync.mp3"),
          5_000,
        );
        expect(submitted).toBeDefined();
        // …and nothing escaped: in production this exception ends the process.
        await h.stack.settled();
        expect(h.watch.describe()).toEqual([]);
      } finally {
        h.watch.take();
      }
    });

    it("a file_share whose url_private_download is not a URL is answered, and leaves no unreadable job", async () => {
      const file = h.stack.fake.addFile({
        name: "standup.mp3",
        bytes: recordingBytes("standup.mp3", 512, 1),
        user: ALICE,
      });
      const ts = await share([{ ...file, url_private_download: "not a url", url_private: "nope" }]);
      const reply = await within(() => botReplies(h.stack, ts)[0], 1_500);
      const unreadable = h.stack.logs.filter((l) => l.includes("unreadable job record"));
      expect({ reply: reply?.text, unreadableRecords: unreadable.length }).toEqual({
        reply: expect.any(String),
        unreadableRecords: 0,
      });
    });

    it("the bot token (no secret at all) never goes to a download URL on a host that is not Slack's", async () => {
      const foreign = await foreignHost();
      try {
        const file = h.stack.fake.addFile({
          name: "sync.mp3",
          bytes: recordingBytes("sync.mp3", 512, 1),
          user: ALICE,
        });
        const ts = await share([{ ...file, url_private_download: `${foreign.origin}/x.mp3` }]);
        await eventually(
          () => statusMessage(h.stack.thread(ts))?.text ?? "",
          (text) => /could not/i.test(text),
        );
        // The token the app uses: the single mode's, or the one the install got by OAuth.
        expect(h.secrets).toContain(h.stack.botToken);
        expect(foreign.auth.filter((a) => h.secrets.some((s) => a?.includes(s)))).toEqual([]);
      } finally {
        foreign.server.close();
      }
    });

    it("a message of documents and a video says something of the video only", async () => {
      const slides = h.stack.fake.addFile({
        name: "slides.pdf",
        bytes: Buffer.alloc(10, 1),
        user: ALICE,
      });
      const minutes = h.stack.fake.addFile({
        name: "minutes.txt",
        bytes: Buffer.alloc(10, 1),
        user: ALICE,
      });
      const clip = h.stack.fake.addFile({
        name: "demo.mov",
        bytes: Buffer.alloc(10, 1),
        user: ALICE,
      });
      const ts = await share([slides, minutes, clip]);
      const replies = await within(() => {
        const found = botReplies(h.stack, ts);
        return found.length > 0 ? found : undefined;
      });
      // One reply, about the video; nothing of the documents (it once listed them all and
      // promised notes of recordings the message did not hold).
      expect(replies).toHaveLength(1);
      expect(replies?.[0]?.text).toMatch(
        /^I can't convert demo\.mov because FFmpeg is not installed/,
      );
      expect(replies?.[0]?.text).not.toMatch(/slides|minutes|being turned into notes/);
    });

    it("a long file name cut inside a mention leaves no raw `<!` fragment in the reply's text", async () => {
      // clampText runs before neutralizeMentions (command-replies.ts buildRefusal and
      // buildSkippedFiles), so a mention cut by the 200-character clamp escapes neutralising.
      const name = `${"x".repeat(194)}<!here>.mov`;
      const file = h.stack.fake.addFile({ name, bytes: Buffer.alloc(10, 1), user: ALICE });
      const ts = await share([file]);
      const reply = await within(() => botReplies(h.stack, ts)[0]);
      expect(reply?.text).toMatch(/^I can.t convert x+/);
      expect(reply?.text).not.toMatch(/<[!@#]/);
    });

    it("a file stub that files.info cannot find does not cost the other files of the message", async () => {
      const recording = h.stack.fake.addFile({
        name: "retro.m4a",
        bytes: recordingBytes("retro.m4a", 4096, 2),
        user: ALICE,
      });
      const stub = { id: uniqueId("FSTUB"), mode: "hidden_by_limit" };
      const ts = await share([stub, recording]);
      const status = await within(() => statusMessage(h.stack.thread(ts)), 1_500);
      expect(status, "the recording beside the stub got no job and no answer").toBeDefined();
    });
  });
}
