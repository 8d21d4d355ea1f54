import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTIONS } from "../../src/slack/ids.ts";
import type { SlackMode } from "../../support/e2e/stack.ts";
import {
  ALICE,
  BOB,
  buttonValue,
  CHANNEL,
  eventually,
  SIGNING_SECRET,
  statusMessage,
} from "../../support/e2e/stack.ts";
import { blockActionPayload } from "../../support/fake-slack/slack-payloads.ts";
import { sendAction } from "../../support/fake-slack/slack-request.ts";
import { nastyText, notAJobId, notAString } from "../../support/hostile/arbitraries.ts";
import {
  activeJobCount,
  createdJobFiles,
  ephemeralsFor,
  expectAnswered,
  expectInertText,
  expectProcessIntact,
  type HostileStack,
  makeRealJobs,
  OTHER_TEAM,
  type RealJobs,
  runsIn,
  STRANGER_TEAM,
  startHostileStack,
  timed,
  uploadRecording,
  within,
} from "../../support/hostile/hostile-stack.ts";
import {
  activitySince,
  jobOfOtherInstall,
  NOTHING_DONE,
  OTHER_CHANNEL,
} from "../../support/hostile/other-installs.ts";

/**
 * Hostile button clicks against the real app: every action id of ours with values that are
 * not job ids, ids of real jobs in the wrong stage, missing channel, message or trigger.
 * (Action ids that are not ours go with the raw bodies: Bolt leaves them 3 s unanswered.)
 *
 * Cases: 300 generated cases (a third in OAuth mode), plus 2 example-based regression tests
 * of bugs these runs found; in OAuth mode, clicks claiming installs that never were, and
 * buttons naming another install's job.
 */
export function slackActionsSuite(mode: SlackMode): void {
  let h: HostileStack;
  let jobs: RealJobs;
  beforeAll(async () => {
    h = await startHostileStack(mode);
    jobs = await makeRealJobs(h.stack);
  }, 30_000);
  afterAll(async () => {
    await expectProcessIntact(h);
    await h.stop();
  });

  type JobKey = keyof RealJobs;

  // Installs by OAuth: a click is the install's it claims (its team, its org), and a job
  // is only ever found by a click of the install, and workspace, that started it.
  if (mode === "oauth")
    describe("clicks of other installs (oauth mode)", () => {
      const elsewhere = { id: "E0STRANGE", name: "Strange Org" };

      it("refuses with 401 a click signed with the app's secret for a workspace or org that never installed it, and does nothing", async () => {
        const { stack } = h;
        const done = await activitySince(stack);
        const statusTs = (await stack.job(jobs.naming))?.statusTs ?? "";
        const click = { value: jobs.naming, user: ALICE, channel: CHANNEL, messageTs: statusTs };
        const forged = [
          // A workspace of the fake that never installed the app.
          blockActionPayload({ ...click, actionId: ACTIONS.cancel, teamId: STRANGER_TEAM }),
          // An org that never installed it org-wide…
          blockActionPayload({
            ...click,
            actionId: ACTIONS.skipNaming,
            teamId: STRANGER_TEAM,
            enterprise: elsewhere,
            isEnterpriseInstall: true,
          }),
          // …claimed for the installed workspace itself.
          blockActionPayload({
            ...click,
            actionId: ACTIONS.cancel,
            enterprise: elsewhere,
            isEnterpriseInstall: true,
          }),
        ];
        const statuses = await Promise.all(
          forged.map(
            async (payload) => (await sendAction(stack.url, SIGNING_SECRET, payload)).status,
          ),
        );
        expect(statuses).toEqual([401, 401, 401]);
        expect(await done()).toEqual(NOTHING_DONE);
        expect((await stack.job(jobs.naming))?.stage).toBe("naming");
      });

      it("answers a button naming another install's job as it answers a job that never was, and that job is untouched", async () => {
        const { stack } = h;
        const foreign = await jobOfOtherInstall(stack, "other-install.m4a");
        const otherThread = () =>
          JSON.stringify(stack.fake.team(OTHER_TEAM).thread(OTHER_CHANNEL, foreign.threadTs));
        const threadBefore = otherThread();
        /** What Alice is shown for a click of `actionId` with `value`: a reply, or a modal's notice. */
        const shown = async (actionId: string, value: string) => {
          const ephemerals = stack.fake.ephemerals.length;
          const views = stack.fake.views.length;
          const payload = blockActionPayload({
            actionId,
            value,
            user: ALICE,
            channel: CHANNEL,
            messageTs: foreign.statusTs,
          });
          expect((await sendAction(stack.url, SIGNING_SECRET, payload)).status).toBe(200);
          return within(() => {
            const reply = ephemeralsFor(stack, ALICE, ephemerals)[0];
            if (reply !== undefined) return `reply: ${reply.text}`;
            const notice = stack.fake.views.slice(views).find((v) => v.op === "update");
            return notice === undefined
              ? undefined
              : `modal: ${JSON.stringify(notice.view.blocks)}`;
          });
        };
        for (const actionId of [
          ACTIONS.cancel,
          ACTIONS.skipNaming,
          ACTIONS.retry,
          ACTIONS.nameSpeakers,
          ACTIONS.regenerate,
        ]) {
          const replayed = await shown(actionId, foreign.jobId);
          const missing = await shown(actionId, randomUUID());
          expect(missing, `${actionId} on a job that never was`).toBeDefined();
          expect(replayed, `${actionId} on another install's job`).toBe(missing);
        }
        await stack.settled();
        expect((await stack.job(foreign.jobId))?.stage).toBe("naming");
        expect(otherThread()).toBe(threadBefore);
      });
    });

  /** Clicks on real jobs that their stage refuses (none of them changes the job). */
  const WRONG_STAGE: [string, JobKey][] = [
    [ACTIONS.cancel, "done"],
    [ACTIONS.cancel, "canceled"],
    [ACTIONS.skipNaming, "done"],
    [ACTIONS.skipNaming, "canceled"],
    [ACTIONS.retry, "naming"],
    [ACTIONS.retry, "done"],
    [ACTIONS.retry, "canceled"],
    [ACTIONS.nameSpeakers, "done"],
    [ACTIONS.nameSpeakers, "canceled"],
    [ACTIONS.regenerate, "naming"],
    [ACTIONS.regenerate, "canceled"],
  ];
  const OURS = Object.values(ACTIONS);
  const OPENS_MODAL: string[] = [ACTIONS.nameSpeakers, ACTIONS.regenerate];

  type Value =
    | { kind: "text"; text: string }
    | { kind: "real"; job: JobKey }
    | { kind: "typed"; value: unknown };

  const click = fc.oneof(
    fc.record({
      actionId: fc.constantFrom(...OURS),
      value: notAJobId.map((text): Value => ({ kind: "text", text })),
    }),
    fc.constantFrom(...WRONG_STAGE).map(([actionId, job]) => ({
      actionId,
      value: { kind: "real", job } as Value,
    })),
    fc.record({
      actionId: fc.constantFrom(...OURS),
      value: fc
        .oneof(fc.constant(null), notAString)
        .map((value): Value => ({ kind: "typed", value })),
    }),
  );

  const shape = fc.record({
    user: fc.constantFrom(ALICE, BOB, "U0NOBODY1"),
    channel: fc.constantFrom("ours", "ours", "missing", "garbage"),
    garbageChannel: nastyText(20),
    message: fc.boolean(),
    trigger: fc.constantFrom(true, true, false),
    blockId: fc.oneof(fc.constant("actions"), nastyText(30)),
  });

  describe(`hostile button clicks (${mode} mode)`, () => {
    it("answers every click at once, and tells the clicker when a job id is unknown or in the wrong stage", async () => {
      const activeBefore = await activeJobCount(h.stack);
      const createdBefore = createdJobFiles(h.stack).length;
      await fc.assert(
        fc.asyncProperty(click, shape, async (c, s) => {
          const { stack } = h;
          const value =
            c.value.kind === "text"
              ? c.value.text
              : c.value.kind === "real"
                ? jobs[c.value.job]
                : "";
          // A real job's button sits on its status message; any other value on some message.
          const statusTs =
            c.value.kind === "real" ? (await stack.job(jobs[c.value.job]))?.statusTs : undefined;
          const payload = blockActionPayload({
            actionId: c.actionId,
            value,
            user: s.user,
            channel: CHANNEL,
            messageTs: statusTs ?? "1700000000.000100",
            blockId: s.blockId,
          }) as Record<string, unknown> & { actions: Record<string, unknown>[] };
          if (c.value.kind === "typed") {
            const [action] = payload.actions;
            if (action !== undefined) action.value = c.value.value;
          }
          if (s.channel === "missing") {
            delete payload.channel;
            delete payload.container;
          }
          if (s.channel === "garbage") payload.channel = { id: s.garbageChannel };
          if (!s.message) delete payload.message;
          if (!s.trigger) delete payload.trigger_id;

          const before = stack.fake.ephemerals.length;
          const answer = await timed((signal) =>
            sendAction(stack.url, SIGNING_SECRET, payload, { signal }),
          );
          expectAnswered(answer, c.actionId);
          expect(answer.res.status).toBe(200);

          const readable = typeof value === "string" && value.length >= 1 && value.length <= 100;
          // A link button, and a modal's own button (a click from a message has no view to
          // answer in): nothing to tell.
          const wantsReply =
            c.actionId !== ACTIONS.openThread &&
            c.actionId !== ACTIONS.speakersPrevious &&
            c.value.kind !== "typed" &&
            readable &&
            s.channel === "ours" &&
            (s.trigger || !OPENS_MODAL.includes(c.actionId));
          if (!wantsReply) return;
          const reply = await within(() => ephemeralsFor(stack, s.user, before)[0], 1_500);
          expect(
            reply,
            `no reply to a ${c.actionId} click on ${JSON.stringify(value)}`,
          ).toBeDefined();
          expect(reply?.channel).toBe(CHANNEL);
          expectInertText(reply?.text ?? "", "the reply");
        }),
        { numRuns: runsIn(mode, 300) },
      );
      // The real jobs are where they were, and no job came out of the clicks.
      expect((await h.stack.job(jobs.naming))?.stage).toBe("naming");
      expect((await h.stack.job(jobs.done))?.stage).toBe("done");
      expect((await h.stack.job(jobs.canceled))?.stage).toBe("canceled");
      expect(createdJobFiles(h.stack).length).toBe(createdBefore);
      expect(await activeJobCount(h.stack)).toBe(activeBefore);
    }, 60_000);
  });

  describe.concurrent(`regressions: bugs the hostile click runs found (${mode} mode)`, () => {
    it("a Cancel clicked while a step still holds the job is applied, not lost", async () => {
      // Found while building the fixtures: clicking Cancel as soon as the button showed on a
      // short recording lost the cancel 9 times in 10. The job service recorded the request
      // for the runner when the lease was busy (job-service.ts cancel), but a job that had
      // just reached "naming" had no step left to run, so nothing ever read the request.
      // Holding the lease here stands in for the step that is finishing (a status redraw).
      const { stack } = h;
      const upload = await uploadRecording(stack, "cancel-race.m4a");
      const status = await eventually(
        () => statusMessage(stack.thread(upload.ts)),
        (m) => buttonValue(m, ACTIONS.nameSpeakers) !== undefined,
      );
      const jobId = buttonValue(status, ACTIONS.cancel) ?? "";
      // The runner may still hold the lease for a moment (it records "waiting for names"
      // right after drawing the buttons): take it as soon as it is free.
      const lease = await eventually(
        () => stack.app.store.acquireLease(`job:${jobId}`, 10_000),
        (token) => token !== undefined,
      );
      expect(lease).toBeDefined();
      const ephemerals = stack.fake.ephemerals.length;
      const payload = blockActionPayload({
        actionId: ACTIONS.cancel,
        value: jobId,
        user: ALICE,
        channel: CHANNEL,
        messageTs: status?.ts ?? "",
      });
      expect((await sendAction(stack.url, SIGNING_SECRET, payload)).status).toBe(200);
      await stack.app.store.releaseLease(`job:${jobId}`, lease ?? "");
      const canceled = await within(async () => {
        const job = await stack.job(jobId);
        return job?.stage === "canceled" ? job : undefined;
      }, 1_500);
      const told = ephemeralsFor(stack, ALICE, ephemerals).map((e) => e.text);
      expect(
        { stage: canceled?.stage ?? (await stack.job(jobId))?.stage, told },
        "the Cancel click was neither applied nor refused",
      ).toMatchObject({ stage: "canceled" });
    });

    it("a click payload without `user` is answered without a 5xx", async () => {
      const payload = blockActionPayload({
        actionId: ACTIONS.cancel,
        value: jobs.naming,
        user: ALICE,
        channel: CHANNEL,
        messageTs: "1700000000.000100",
      });
      delete payload.user;
      const answer = await timed((signal) =>
        sendAction(h.stack.url, SIGNING_SECRET, payload, { signal }),
      );
      expectAnswered(answer, "a click without user");
    });
  });
}
