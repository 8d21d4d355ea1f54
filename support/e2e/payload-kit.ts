import {
  FIXTURE_NAMES,
  loadForm,
  loadObject,
  type Role,
  recordingBytes,
} from "../../test/fixtures/slack-payloads/index.ts";
import type { FakeMessage, SlackFileObject } from "../fake-slack/fake-slack-types.ts";
import { sendEnvelope, sendEvent } from "../fake-slack/slack-request.ts";
import {
  ALICE,
  CHANNEL,
  eventually,
  SIGNING_SECRET,
  type Stack,
  shareRecording,
  statusMessage,
} from "./stack.ts";

/** The direct message between Alice and the bot, for payloads Slack published from a DM. */
export const DM = "D0E2EDM01";

/** The fixtures slack-payloads.test.ts sends: events and the file objects they carry. */
export const EVENT_FIXTURES = [
  "event-file_shared",
  "event-message-bot",
  "event-message-file_share-image",
  "event-message-file_share-image-in-dm",
  "event-message-file_share-mp3",
  "event-message-file_share-mp4",
  "event-message-file_share-slack-connect-stub",
  "event-message-file_share-slack_audio-clip",
  "event-message-file_share-slack_video-clip",
  "file-canvas",
  "file-hidden_by_limit",
  "file-snippet",
  "file-tombstone",
] as const;

/** The fixtures slack-payloads-interactions.test.ts sends: the requests that are not files. */
export const INTERACTION_FIXTURES = [
  "command-slash",
  "event-app_home_opened",
  "interaction-block_actions",
  "interaction-view_submission",
  "ssl_check",
  "url_verification",
  "view-state-empty-inputs",
] as const;

/**
 * The fixtures ways-in.test.ts sends: a message shortcut, and a mention read from the
 * `message` events the bot gets.
 */
export const WAYS_IN_FIXTURES = [
  "event-message-mention-in-thread",
  "interaction-message_action",
] as const;

/**
 * The fixtures of installs and Workflow steps, which the fake Slack builds its answers and
 * events from: test/fake-slack/installations.test.ts and rotation-uninstall-steps.test.ts
 * hold the fake's payloads to every field of each, and the app meets them through the fake
 * in oauth-installs.test.ts (`oauth.v2.access`, org-wide events, uninstalls),
 * oauth-forget.test.ts (`team_access_revoked`) and
 * workflow-step.test.ts (`function_executed`).
 */
export const FAKE_SLACK_FIXTURES = [
  "event-app_uninstalled",
  "event-function_executed",
  "event-org-wide-install",
  "event-team_access_revoked",
  "event-tokens_revoked",
  "method-auth.test",
  "method-oauth.v2.access",
  "method-oauth.v2.access-org-wide",
] as const;

/**
 * Runs Slack's published payloads (test/fixtures/slack-payloads) through a stack: loads
 * each with the stack's ids, registers the files it names with the fake (so `files.info`
 * and downloads answer as Slack would), sends it signed, and remembers which fixtures ran.
 */
export class PayloadKit {
  readonly used = new Set<string>();
  readonly #stack: Stack;

  constructor(stack: Stack) {
    this.#stack = stack;
  }

  /** The ids every fixture's roles map to: the fake workspace's, Alice acting. */
  ids(extra: Partial<Record<Role, string>> = {}): Partial<Record<Role, string>> {
    const { fake } = this.#stack;
    return {
      team: fake.teamId,
      channel: CHANNEL,
      dm: DM,
      user: ALICE,
      bot: fake.botUserId,
      botId: fake.botId,
      app: fake.appId,
      fileHost: fake.origin,
      ...extra,
    };
  }

  object(name: string, extra: Partial<Record<Role, string>> = {}): Record<string, unknown> {
    this.used.add(name);
    return loadObject(name, this.ids(extra));
  }

  form(name: string, extra: Partial<Record<Role, string>> = {}): string {
    this.used.add(name);
    return loadForm(name, this.ids(extra));
  }

  /** The fixtures no test has loaded yet. */
  unused(): string[] {
    return FIXTURE_NAMES.filter((name) => !this.used.has(name));
  }

  /**
   * Makes the fake hold a shared message's files and the message itself, as Slack holds
   * them once the event is sent: recordings with bytes of their announced size (and
   * Slack's transcoded copy behind `files-tmb/`), other files without bytes; with
   * `files: false`, only the message. Copies are stored: the event is sent as published.
   */
  registerShare(event: Record<string, unknown>, options: { files?: boolean } = {}): FakeMessage {
    const files = (event.files ?? []) as Record<string, unknown>[];
    const stored = files.map((file) => {
      const copy = structuredClone(file);
      // A file Slack will not describe (files.info fails) is in the message, not the store.
      if (options.files === false) return copy;
      if (typeof copy.url_private_download !== "string" || typeof copy.size !== "number") {
        return this.#stack.fake.addFileObject(copy);
      }
      const container = /\.mp3$/i.test(String(copy.name)) ? "mp3" : "mp4";
      return this.#stack.fake.addFileObject(copy, {
        bytes: recordingBytes(container, copy.size),
        preview: recordingBytes("mp4", 64),
      });
    });
    return this.#stack.fake.addMessage({
      channel: String(event.channel),
      user: String(event.user),
      ts: String(event.ts),
      text: String(event.text ?? ""),
      files: stored as SlackFileObject[],
    });
  }

  /** Sends an envelope as published (its own event_id), signed. */
  async sendEnvelope(envelope: Record<string, unknown>) {
    const sent = await sendEnvelope(this.#stack.url, SIGNING_SECRET, envelope);
    if (sent.status !== 200) throw new Error(`the app answered ${sent.status}`);
    return sent;
  }

  /** Sends a published inner event in the Events API envelope. */
  async sendEvent(event: Record<string, unknown>) {
    const sent = await sendEvent(this.#stack.url, SIGNING_SECRET, event, {
      teamId: this.#stack.fake.teamId,
    });
    if (sent.status !== 200) throw new Error(`the app answered ${sent.status}`);
    return sent;
  }

  /**
   * A file_share message event as the Events API delivers one (the bolt-python image
   * fixture, Alice in the channel) carrying `files` instead of its image.
   */
  shareOf(files: Record<string, unknown>[]): Record<string, unknown> {
    const envelope = this.object("event-message-file_share-image");
    const event = envelope.event as Record<string, unknown>;
    event.files = files;
    return envelope;
  }

  /** What the bot said in a thread, besides a job's own messages. */
  botReplies(channel: string, ts: string): FakeMessage[] {
    return this.#stack.fake
      .thread(channel, ts)
      .filter((m) => m.bot_id !== undefined && m.metadata === undefined);
  }

  /**
   * Waits until the app has handled every event sent so far, so "no reply" is not just
   * "no reply yet": a recording shared after them gets its status message first.
   */
  async settled(): Promise<void> {
    await this.#stack.fake.deliveriesSettled();
    const { ts } = await shareRecording(this.#stack, `marker-${Date.now()}.m4a`, {
      bytes: recordingBytes("mp4", 4096),
    });
    await eventually(
      () => statusMessage(this.#stack.thread(ts)),
      (m) => m !== undefined,
    );
    await this.#stack.fake.deliveriesSettled();
  }
}
