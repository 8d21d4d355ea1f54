import { randomBytes } from "node:crypto";
import { z } from "zod";
import { httpDelivery, type SlackDelivery, socketDelivery } from "../e2e/slack-delivery.ts";
import { createEmulator, type Emulator } from "../emulator/create-emulator.ts";
import { HTTP_MANIFEST, SOCKET_MANIFEST } from "../fake-slack/app-manifest.ts";
import { createFakeSlack, type FakeSlack } from "../fake-slack/create-fake-slack.ts";

/** The workspace of the stand-in: one channel, two people (Alice shares, Bob is named). */
export const WORKSPACE = {
  channel: { id: "C0LOCAL01", name: "weekly-sync" },
  alice: { id: "U0ALICE01", name: "alice", real_name: "Alice Nguyen", locale: "en-US" },
  bob: { id: "U0BOB0001", name: "bob", real_name: "Bob Tran", locale: "en-US" },
} as const;

export type SlackMode = "socket" | "http";

/** The names the stand-in's ids show as: its people, its channel and the bot. */
export function workspaceNames(fake: FakeSlack): ReadonlyMap<string, string> {
  return new Map([
    [WORKSPACE.alice.id, WORKSPACE.alice.real_name],
    [WORKSPACE.bob.id, WORKSPACE.bob.real_name],
    [WORKSPACE.channel.id, WORKSPACE.channel.name],
    [fake.botUserId, "Meeting Notes"],
  ]);
}

/**
 * The local Slack stand-in (the fake Slack's Web API, file hosting and, in Socket Mode, its
 * Socket Mode server) and the Note Service emulator, with what the bot needs to reach them.
 */
export interface StandIn {
  readonly mode: SlackMode;
  readonly fake: FakeSlack;
  readonly emulator: Emulator;
  /** The bot's environment for this stand-in: tokens, API URL, the emulator's address and key. */
  readonly botEnv: Record<string, string>;
  /**
   * How Slack's deliveries reach the bot: envelopes over the socket, or signed requests to
   * the bot's `/slack/events` once {@link StandIn.botListensAt} said where.
   */
  deliver(): SlackDelivery;
  /** HTTP mode: the bot's `/slack/events` URL (Slack's Request URL); the bot's own posts go there too. */
  botListensAt(url: string): void;
  close(): Promise<void>;
}

/** How long the emulator takes, from the environment as `npm run emulator` reads it. */
const paceSchema = z.object({
  EMULATOR_AUDIO_DURATION_MS: z.coerce.number().int().min(0).default(3000),
  EMULATOR_NOTE_DURATION_MS: z.coerce.number().int().min(0).optional(),
  EMULATOR_POLLS_TO_COMPLETE: z.coerce.number().int().min(1).default(2),
  /**
   * Slack's rate limits in the stand-in, and the bot's budget (SLACK_RATE_SHARE), times
   * this: 1, Slack's own, unless a test wants the journey without the pacing.
   */
  TRIAL_RATE_SCALE: z.coerce.number().min(1).max(100).default(1),
});

type Pace = z.infer<typeof paceSchema>;

/**
 * Starts the stand-in for `mode`: the fake Slack holds the bot to the repository's manifest
 * of that mode (its scopes, Slack's limits and rules), the emulator walks each recording
 * through its states in about `EMULATOR_AUDIO_DURATION_MS` (3 s here: long enough to watch).
 */
export async function startStandIn(
  mode: SlackMode,
  env: Record<string, string | undefined>,
): Promise<StandIn> {
  const pace = paceSchema.parse(
    Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== "")),
  );
  const signingSecret = randomBytes(16).toString("hex");
  const { fake, emulator } = await startServers(mode, pace);
  const socket = fake.socket;
  let delivery: SlackDelivery | undefined =
    socket === undefined ? undefined : socketDelivery(socket, fake.teamId);
  return {
    mode,
    fake,
    emulator,
    botEnv: {
      SLACK_BOT_TOKEN: fake.botToken,
      ...(socket === undefined
        ? { SLACK_SIGNING_SECRET: signingSecret }
        : { SLACK_APP_TOKEN: socket.appToken }),
      SLACK_API_URL: fake.apiUrl,
      NOTE_TAKER_BASE_URL: emulator.baseUrl,
      NOTE_TAKER_API_KEY: emulator.apiKey,
      // Scaled alike, the bot keeps within the stand-in's limits by the margin it keeps in Slack.
      ...(pace.TRIAL_RATE_SCALE === 1 ? {} : { SLACK_RATE_SHARE: String(pace.TRIAL_RATE_SCALE) }),
    },
    deliver() {
      if (delivery === undefined) throw new Error("the bot's Request URL is not known yet");
      return delivery;
    },
    botListensAt(url) {
      if (socket !== undefined) return;
      delivery = httpDelivery(url, signingSecret, fake.teamId);
      // As Slack does: the bot's own posts and uploads come back to it as events.
      fake.deliverEvents({ url, signingSecret });
    },
    async close() {
      fake.deliverEvents(undefined);
      await Promise.all([fake.close(), emulator.close()]);
    },
  };
}

/** The fake Slack with the workspace's people and channel, and the emulator at `pace`. */
async function startServers(mode: SlackMode, pace: Pace) {
  const [fake, emulator] = await Promise.all([
    createFakeSlack({
      socketMode: mode === "socket",
      manifest: mode === "socket" ? SOCKET_MANIFEST : HTTP_MANIFEST,
      // The DOCX and transcripts the bot uploads are kept whole, to be saved for the person.
      keepUploadBytes: 64 * 1024 * 1024,
      knobs: { rateScale: pace.TRIAL_RATE_SCALE },
    }),
    createEmulator({
      knobs: {
        audioDurationMs: pace.EMULATOR_AUDIO_DURATION_MS,
        noteDurationMs:
          pace.EMULATOR_NOTE_DURATION_MS ?? Math.round(pace.EMULATOR_AUDIO_DURATION_MS / 2),
        pollsToComplete: pace.EMULATOR_POLLS_TO_COMPLETE,
      },
    }),
  ]);
  fake.addUser({ ...WORKSPACE.alice });
  fake.addUser({ ...WORKSPACE.bob });
  fake.addChannel({ ...WORKSPACE.channel });
  return { fake, emulator };
}
