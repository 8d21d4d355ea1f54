import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SlackMode } from "../../support/e2e/stack.ts";
import { ALICE, BOB, CHANNEL, eventually, SIGNING_SECRET } from "../../support/e2e/stack.ts";
import { newTriggerId } from "../../support/fake-slack/slack-payloads.ts";
import { sendCommand, sendSigned } from "../../support/fake-slack/slack-request.ts";
import { controlChar, hugeText, nastyText } from "../../support/hostile/arbitraries.ts";
import {
  createdJobFiles,
  expectAnswered,
  expectInertText,
  expectProcessIntact,
  type HostileStack,
  runsIn,
  STRANGER_TEAM,
  startHostileStack,
  timed,
  uploadRecording,
  within,
} from "../../support/hostile/hostile-stack.ts";
import { activitySince, NOTHING_DONE } from "../../support/hostile/other-installs.ts";

/**
 * Hostile `/meeting-notes` invocations against the real app: subcommands with junk, very
 * long text, control characters, unicode spaces, and fields missing from the form.
 *
 * Cases: 250 (text) + 80 (missing fields) = 330 generated cases (a third in OAuth mode);
 * in OAuth mode, commands claiming installs that never were.
 */
export function slackCommandsSuite(mode: SlackMode): void {
  let h: HostileStack;
  beforeAll(async () => {
    h = await startHostileStack(mode);
    // Jobs with hostile (but valid) names, so `status` and `cancel` have something to show.
    await uploadRecording(h.stack, "<!here> & <@U0BOB0001> weekly 💥.mp3");
    await uploadRecording(h.stack, `${"Quarterly review ".repeat(12)}.m4a`);
    await eventually(
      () => createdJobFiles(h.stack).length,
      (n) => n === 2,
    );
  }, 30_000);
  afterAll(async () => {
    await expectProcessIntact(h);
    await h.stop();
  });

  // Installs by OAuth: a command is the install's it claims (its team, its org).
  if (mode === "oauth")
    describe("commands of other installs (oauth mode)", () => {
      it("refuses with 401 a command signed with the app's secret for a workspace or org that never installed it, and does nothing", async () => {
        const { stack } = h;
        const done = await activitySince(stack);
        const elsewhere = { enterprise_id: "E0STRANGE", enterprise_name: "Strange Org" };
        const forged = [
          { team_id: STRANGER_TEAM },
          { team_id: STRANGER_TEAM, ...elsewhere, is_enterprise_install: true },
          { team_id: stack.fake.teamId, ...elsewhere, is_enterprise_install: true },
        ].flatMap((install) =>
          ["", "status", "cancel", "settings", "help"].map((text) => ({
            ...install,
            text,
            user_id: ALICE,
            channel_id: CHANNEL,
            response_url: stack.fake.responseUrl(),
          })),
        );
        const statuses = await Promise.all(
          forged.map(async (input) => (await sendCommand(stack.url, SIGNING_SECRET, input)).status),
        );
        expect(new Set(statuses)).toEqual(new Set([401]));
        expect(await done()).toEqual(NOTHING_DONE);
      });
    });

  const SUBCOMMANDS = ["help", "status", "settings", "cancel", "HELP", "Cancel", "dance", ""];
  const SPACES = [" ", "  ", "\t", "\n", "\u00a0", "\u3000", "\u2003"];

  const commandText = fc.oneof(
    fc
      .tuple(
        fc.constantFrom(...SUBCOMMANDS),
        fc.array(fc.tuple(fc.constantFrom(...SPACES), nastyText(40)), { maxLength: 4 }),
      )
      .map(([sub, rest]) => `${sub}${rest.map(([space, word]) => `${space}${word}`).join("")}`),
    nastyText(300),
    hugeText,
    fc.array(controlChar, { minLength: 1, maxLength: 10 }).map((chars) => chars.join("")),
    fc.array(fc.constantFrom(...SPACES), { minLength: 1, maxLength: 5 }).map((s) => s.join("")),
  );

  /** What the person must see: the modal (no subcommand, `settings`) or an ephemeral reply. */
  function expectsModal(text: string): boolean {
    const sub = text.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
    return sub === "" || sub === "settings";
  }

  describe(`hostile slash commands (${mode} mode)`, () => {
    it("answers every /meeting-notes at once, and always with a modal or a reply to the person", async () => {
      const createdBefore = createdJobFiles(h.stack).length;
      await fc.assert(
        fc.asyncProperty(
          commandText,
          fc.constantFrom(ALICE, BOB, "U0NOBODY1"),
          fc.constantFrom(CHANNEL, "C0OTHER01"),
          async (text, user, channel) => {
            const { stack } = h;
            const views = stack.fake.views.length;
            const posts = stack.fake.responseUrlPosts.length;
            const answer = await timed((signal) =>
              sendCommand(
                stack.url,
                SIGNING_SECRET,
                {
                  text,
                  user_id: user,
                  channel_id: channel,
                  team_id: stack.fake.teamId,
                  response_url: stack.fake.responseUrl(),
                },
                { signal },
              ),
            );
            expectAnswered(answer, "the command");
            expect(answer.res.status).toBe(200);
            if (expectsModal(text)) {
              // Opened at once (then filled by an update; an earlier command's fill may land
              // after this one started, so the open is looked for, not the next record).
              const opened = await within(
                () => stack.fake.views.slice(views).find((v) => v.op === "open"),
                1_500,
              );
              expect(opened, `no modal for ${JSON.stringify(text.slice(0, 80))}`).toBeDefined();
              return;
            }
            // Help and unknown words may ride on the ack; everything else goes to response_url.
            const inAck = answer.res.body === "" ? undefined : answer.res.json;
            const post =
              inAck === undefined
                ? (await within(() => stack.fake.responseUrlPosts[posts], 1_500))?.body
                : inAck;
            expect(post, `no reply to ${JSON.stringify(text.slice(0, 80))}`).toBeDefined();
            const body = post as { response_type?: string; text?: string };
            expect(body.response_type).toBe("ephemeral");
            expectInertText(body.text ?? "", "the reply");
          },
        ),
        { numRuns: runsIn(mode, 250) },
      );
      expect(createdJobFiles(h.stack).length).toBe(createdBefore);
    }, 60_000);

    it("answers a command form with fields missing or junk at once (no reply can be expected)", async () => {
      // `command` stays: without it Bolt cannot route the form and answers 404 after 3 s
      // (slack-raw-bodies.test.ts sends such forms, concurrently).
      const fields = [
        "text",
        "user_id",
        "channel_id",
        "team_id",
        "response_url",
        "trigger_id",
      ] as const;
      await fc.assert(
        fc.asyncProperty(
          fc.subarray([...fields], { minLength: 1 }),
          fc.constantFrom("drop", "junk", "empty"),
          nastyText(40),
          async (broken, how, junk) => {
            const form: Record<string, string> = {
              token: "fake-verification-token",
              command: "/meeting-notes",
              text: "help",
              user_id: ALICE,
              channel_id: CHANNEL,
              team_id: h.stack.fake.teamId,
              response_url: h.stack.fake.responseUrl(),
              trigger_id: newTriggerId(),
              api_app_id: "A0FAKEAPP",
            };
            for (const field of broken) {
              if (how === "drop") delete form[field];
              else form[field] = how === "empty" ? "" : junk;
            }
            const body = new URLSearchParams(form).toString();
            const answer = await timed((signal) =>
              sendSigned(h.stack.url, SIGNING_SECRET, body, "application/x-www-form-urlencoded", {
                signal,
              }),
            );
            expectAnswered(answer, `a command with ${how} ${broken.join(", ")}`);
          },
        ),
        { numRuns: runsIn(mode, 80) },
      );
    }, 60_000);
  });
}
