import type { FakeSlack } from "../fake-slack/create-fake-slack.ts";
import type { FakeMessage } from "../fake-slack/fake-slack-types.ts";
import { blocksText, type NameOf, viewText } from "./block-text.ts";

/** Where the trial's lines go (the terminal; a test's array). */
export type Say = (line: string) => void;

/**
 * Prints what the bot did in the stand-in since the last look, as the person would see it in
 * Slack: its messages in the channel (the status message each time it changes, the note's
 * parts by their first line, its uploads), every modal it opened or updated, every ephemeral
 * answer and every reply through a `response_url`. Each `look()` prints only what is new.
 */
export class SlackWatch {
  readonly #fake: FakeSlack;
  readonly #channel: string;
  readonly #say: Say;
  readonly #shown = new Map<string, string>();
  #views = 0;
  #ephemerals = 0;
  #responses = 0;

  /** Names by id (people, the channel, the bot), for mentions and member pickers. */
  readonly nameOf: NameOf;

  constructor(
    fake: FakeSlack,
    o: { channel: string; say: Say; names: ReadonlyMap<string, string> },
  ) {
    this.#fake = fake;
    this.#channel = o.channel;
    this.#say = o.say;
    this.nameOf = (id) => o.names.get(id);
  }

  /** Prints everything new; call it often (the trial does, every 100 ms while it waits). */
  look(): void {
    for (const message of this.#fake.messages(this.#channel)) this.#message(message);
    const views = this.#fake.views;
    for (const record of views.slice(this.#views)) {
      this.#block(`views.${record.op} (what Alice sees)`, viewText(record.view, this.nameOf));
    }
    this.#views = views.length;
    const ephemerals = this.#fake.ephemerals;
    for (const e of ephemerals.slice(this.#ephemerals)) {
      const lines = e.blocks === undefined ? e.text.split("\n") : blocksText(e.blocks, this.nameOf);
      this.#block(`ephemeral, only ${this.nameOf(e.user) ?? e.user} sees it`, lines);
    }
    this.#ephemerals = ephemerals.length;
    const posts = this.#fake.responseUrlPosts;
    for (const post of posts.slice(this.#responses)) {
      this.#block("reply through the response_url", replyLines(post.body, this.nameOf));
    }
    this.#responses = posts.length;
  }

  #message(message: FakeMessage): void {
    if (message.bot_id === undefined) return;
    const key = shownKey(message);
    if (this.#shown.get(message.ts) === key) return;
    const first = !this.#shown.has(message.ts);
    this.#shown.set(message.ts, key);
    const kind = message.metadata?.event_payload.kind;
    if (kind === "status") {
      this.#block(
        first ? "status" : "status, updated",
        blocksText(message.blocks ?? [], this.nameOf),
      );
    } else if (kind === "note_part") {
      const { part, total } = message.metadata?.event_payload ?? {};
      const line = blocksText(message.blocks ?? [], this.nameOf).find((l) => l.trim() !== "");
      this.#say(`[bot] the note, part ${Number(part) + 1} of ${String(total)}: ${line ?? ""}`);
    } else if ((message.files ?? []).length > 0) {
      for (const file of message.files ?? []) this.#say(`[bot] uploaded ${file.name}`);
    } else {
      const lines =
        message.blocks === undefined
          ? message.text.split("\n")
          : blocksText(message.blocks, this.nameOf);
      this.#block("bot", lines);
    }
  }

  #block(title: string, lines: string[]): void {
    this.#say(`[${title}]`);
    for (const line of lines) this.#say(`  ${line}`);
  }
}

function shownKey(message: FakeMessage): string {
  return JSON.stringify([message.text, message.blocks ?? null, (message.files ?? []).length]);
}

function replyLines(body: unknown, nameOf: NameOf): string[] {
  if (typeof body !== "object" || body === null) return [String(body)];
  const reply = body as { text?: unknown; blocks?: unknown };
  if (Array.isArray(reply.blocks)) return blocksText(reply.blocks, nameOf);
  return typeof reply.text === "string" ? reply.text.split("\n") : [JSON.stringify(body)];
}
