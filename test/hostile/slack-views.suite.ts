import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INPUTS, SPEAKER_ACTIONS, speakerBlock, VIEWS } from "../../src/slack/ids.ts";
import type { SlackMode } from "../../support/e2e/stack.ts";
import { ALICE, BOB, CHANNEL, SIGNING_SECRET } from "../../support/e2e/stack.ts";
import { viewSubmissionPayload } from "../../support/fake-slack/slack-payloads.ts";
import { sendViewSubmission } from "../../support/fake-slack/slack-request.ts";
import { hugeText, junkJson, nastyText, notAString } from "../../support/hostile/arbitraries.ts";
import {
  activeJobCount,
  createdJobFiles,
  ephemeralsFor,
  expectAnswered,
  expectInertText,
  expectProcessIntact,
  expectReadableText,
  type HostileStack,
  makeRealJobs,
  type RealJobs,
  runsIn,
  STRANGER_TEAM,
  startHostileStack,
  timed,
  within,
} from "../../support/hostile/hostile-stack.ts";
import {
  activitySince,
  jobOfOtherInstall,
  NOTHING_DONE,
} from "../../support/hostile/other-installs.ts";

/**
 * Hostile modal submissions against the real app: every callback id with forged
 * `private_metadata` (unknown job ids, real jobs in the wrong stage, JSON garbage, 3,000+
 * characters) and `state.values` of wrong shapes (wrong types, missing and extra blocks,
 * nulls, nested junk, hostile text in the right places).
 *
 * Cases: 400 generated cases (a third in OAuth mode), plus 3 example-based regression tests
 * of bugs these runs found; in OAuth mode, submissions claiming installs that never were, and
 * modals naming another install's job.
 */
export function slackViewsSuite(mode: SlackMode): void {
  let h: HostileStack;
  let jobs: RealJobs;
  let slidesId = "";
  beforeAll(async () => {
    h = await startHostileStack(mode);
    jobs = await makeRealJobs(h.stack);
    slidesId = h.stack.fake.addFile({
      name: "slides.pdf",
      bytes: Buffer.alloc(64, 3),
      user: ALICE,
    }).id;
  }, 30_000);
  afterAll(async () => {
    await expectProcessIntact(h);
    await h.stop();
  });

  type JobKey = keyof RealJobs;

  // Installs by OAuth: a submission is the install's it claims, and its metadata finds only
  // that install's jobs, of its own workspace.
  if (mode === "oauth")
    describe("submissions of other installs (oauth mode)", () => {
      const names = {
        [speakerBlock.name("speaker_1")]: {
          [SPEAKER_ACTIONS.name]: { type: "plain_text_input", value: "Lan" },
        },
      };
      const settings = {
        [INPUTS.autoTranscribe.block]: {
          [INPUTS.autoTranscribe.action]: {
            type: "radio_buttons",
            selected_option: { value: "off" },
          },
        },
      };

      it("refuses with 401 a submission signed with the app's secret for a workspace or org that never installed it, and does nothing", async () => {
        const { stack } = h;
        const done = await activitySince(stack);
        const elsewhere = {
          enterprise: { id: "E0STRANGE", name: "Strange Org" },
          isEnterpriseInstall: true,
        };
        const forged = [
          { teamId: STRANGER_TEAM },
          { teamId: STRANGER_TEAM, ...elsewhere },
          { teamId: stack.fake.teamId, ...elsewhere },
        ].flatMap((install) => [
          viewSubmissionPayload({
            ...install,
            callbackId: VIEWS.speakerNames,
            privateMetadata: jobs.naming,
            values: names,
            user: ALICE,
          }),
          viewSubmissionPayload({
            ...install,
            callbackId: VIEWS.regenerate,
            privateMetadata: jobs.done,
            values: names,
            user: ALICE,
          }),
          viewSubmissionPayload({
            ...install,
            callbackId: VIEWS.channelSettings,
            privateMetadata: JSON.stringify({ channelId: CHANNEL }),
            values: settings,
            user: ALICE,
          }),
        ]);
        const statuses = await Promise.all(
          forged.map(
            async (payload) =>
              (await sendViewSubmission(stack.url, SIGNING_SECRET, payload)).status,
          ),
        );
        expect(statuses).toEqual(forged.map(() => 401));
        expect(await done()).toEqual(NOTHING_DONE);
        expect((await stack.job(jobs.naming))?.stage).toBe("naming");
        expect((await stack.app.jobs.settings.get(stack.tenant, CHANNEL)).autoTranscribe).toBe(
          true,
        );
      });

      it("answers a modal naming another install's job as it answers a job that never was, and that job is untouched", async () => {
        const { stack } = h;
        const foreign = await jobOfOtherInstall(stack, "other-install-modal.m4a");
        const notes = stack.emulator.stats.noteSubmissions.length;
        const submit = async (callbackId: string, jobId: string) => {
          const payload = viewSubmissionPayload({
            callbackId,
            privateMetadata: jobId,
            values: names,
            user: ALICE,
          });
          const answer = await sendViewSubmission(stack.url, SIGNING_SECRET, payload);
          return `${answer.status} ${answer.body}`;
        };
        for (const callbackId of [VIEWS.speakerNames, VIEWS.regenerate]) {
          const replayed = await submit(callbackId, foreign.jobId);
          const missing = await submit(callbackId, randomUUID());
          expect(missing, `${callbackId} of a job that never was`).toMatch(/^200 /);
          expect(replayed, `${callbackId} of another install's job`).toBe(missing);
        }
        await stack.settled();
        expect((await stack.job(foreign.jobId))?.stage).toBe("naming");
        expect(stack.emulator.stats.noteSubmissions.length).toBe(notes);
      });
    });
  type Metadata =
    | { kind: "text"; text: string }
    | { kind: "job"; job: JobKey; suffix: string }
    | { kind: "channel"; channelId: string };

  /** A channel id for settings that is never ours: the app saves settings for it. */
  const otherChannel = fc.oneof(
    fc.constantFrom("C0OTHER01", "G0PRIV0001", "D0DIRECT1"),
    nastyText(30).map((text) => `C0X${text}`),
  );

  function metadataFor(callbackId: string): fc.Arbitrary<Metadata> {
    const text = fc.oneof(
      fc.constant(""),
      fc.uuid(),
      nastyText(100),
      fc.json({ maxDepth: 3 }),
      hugeText,
      fc.constant(JSON.stringify({ channelId: "" })),
      fc.constant(JSON.stringify({ jobId: "x" })),
    );
    // The job the modal is for comes up most: that is the one a forged submission can reach.
    const right: JobKey = callbackId === VIEWS.speakerNames ? "naming" : "done";
    const job = fc.record({
      kind: fc.constant("job" as const),
      job: fc.constantFrom<JobKey>(right, right, "naming", "done", "canceled"),
      // "" keeps the real id; a long suffix makes a 3,000+ character value starting with one.
      suffix: fc.oneof(fc.constant(""), fc.constant(""), hugeText),
    });
    // Settings are saved for the channel named: never ours, whose uploads other tests make.
    const channels =
      callbackId === VIEWS.channelSettings
        ? otherChannel
        : fc.oneof(fc.constant(CHANNEL), otherChannel);
    const jobWeight = callbackId === VIEWS.newNotes || callbackId === VIEWS.channelSettings ? 1 : 6;
    return fc.oneof(
      { weight: 2, arbitrary: text.map((t): Metadata => ({ kind: "text", text: t })) },
      { weight: jobWeight, arbitrary: job },
      {
        weight: 2,
        arbitrary: channels.map((channelId): Metadata => ({ kind: "channel", channelId })),
      },
    ) as fc.Arbitrary<Metadata>;
  }

  /** A file id for a modal's file inputs: unknown, hostile, or a real file that is no recording. */
  const fileId = fc.oneof(fc.constantFrom("F0NOTHERE1", "SLIDES"), nastyText(30), fc.constant(""));

  /** An input's state with the right `type` and hostile content or wrong types. */
  function state(type: string, field: string, good: fc.Arbitrary<unknown>) {
    return fc.oneof(
      { weight: 6, arbitrary: good.map((value) => ({ type, [field]: value })) },
      {
        weight: 1,
        arbitrary: fc
          .oneof(fc.constant(null), notAString)
          .map((value) => ({ type, [field]: value })),
      },
      { weight: 1, arbitrary: junkJson },
      { weight: 1, arbitrary: fc.constant({ type }) },
    );
  }

  const optionOf = (values: fc.Arbitrary<string>) => values.map((value) => ({ value }));

  /** Values shaped like our modals' inputs, any subset of them, with hostile content. */
  const nearlyValid = fc.record(
    {
      [INPUTS.recording.block]: fc.record({
        [INPUTS.recording.action]: state(
          "file_input",
          "files",
          fc.array(
            fileId.map((id) => ({ id })),
            { maxLength: 2 },
          ),
        ),
      }),
      [INPUTS.recentRecording.block]: fc.record({
        [INPUTS.recentRecording.action]: state(
          "static_select",
          "selected_option",
          optionOf(fileId),
        ),
      }),
      [INPUTS.participants.block]: fc.record({
        [INPUTS.participants.action]: state(
          "multi_users_select",
          "selected_users",
          fc.array(fc.oneof(fc.constantFrom(ALICE, BOB), nastyText(20)), { maxLength: 4 }),
        ),
      }),
      [INPUTS.extraNames.block]: fc.record({
        [INPUTS.extraNames.action]: state(
          "plain_text_input",
          "value",
          fc.oneof(nastyText(200), hugeText),
        ),
      }),
      [INPUTS.context.block]: fc.record({
        [INPUTS.context.action]: state(
          "plain_text_input",
          "value",
          fc.oneof(nastyText(300), hugeText),
        ),
      }),
      [INPUTS.language.block]: fc.record({
        [INPUTS.language.action]: state(
          "static_select",
          "selected_option",
          optionOf(
            fc.oneof(fc.constantFrom("auto", "en", "vi", "xx", "EN", "en-US"), nastyText(10)),
          ),
        ),
      }),
      [INPUTS.template.block]: fc.record({
        [INPUTS.template.action]: state(
          "file_input",
          "files",
          fc.array(
            fileId.map((id) => ({ id })),
            { maxLength: 2 },
          ),
        ),
      }),
      [INPUTS.destination.block]: fc.record({
        // Never a well-formed channel id: with a readable recording that would be a real job.
        [INPUTS.destination.action]: state(
          "conversations_select",
          "selected_conversation",
          nastyText(20),
        ),
      }),
      [INPUTS.autoTranscribe.block]: fc.record({
        [INPUTS.autoTranscribe.action]: state(
          "radio_buttons",
          "selected_option",
          optionOf(fc.oneof(fc.constantFrom("on", "off", "ON", ""), nastyText(10))),
        ),
      }),
      [INPUTS.clearTemplate.block]: fc.record({
        [INPUTS.clearTemplate.action]: state(
          "checkboxes",
          "selected_options",
          fc.array(optionOf(fc.oneof(fc.constant(INPUTS.clearTemplate.action), nastyText(10))), {
            maxLength: 2,
          }),
        ),
      }),
      [speakerBlock.user("speaker_1")]: fc.record({
        [SPEAKER_ACTIONS.user]: state(
          "users_select",
          "selected_user",
          fc.oneof(fc.constantFrom(ALICE, BOB, ""), nastyText(20)),
        ),
      }),
      [speakerBlock.name("speaker_1")]: fc.record({
        [SPEAKER_ACTIONS.name]: state(
          "plain_text_input",
          "value",
          fc.oneof(nastyText(100), hugeText),
        ),
      }),
      [speakerBlock.name("speaker_2")]: fc.record({
        [SPEAKER_ACTIONS.name]: state(
          "plain_text_input",
          "value",
          fc.oneof(nastyText(100), hugeText),
        ),
      }),
      [speakerBlock.gender("speaker_2")]: fc.record({
        [SPEAKER_ACTIONS.gender]: state(
          "static_select",
          "selected_option",
          optionOf(fc.oneof(fc.constantFrom("male", "female", "other"), nastyText(10))),
        ),
      }),
    },
    { requiredKeys: [] },
  );

  /** Blocks and actions that are not ours, or ours holding junk. */
  const wrongShape = fc.dictionary(
    fc.oneof(
      fc.constantFrom(
        ...Object.values(INPUTS).map((i) => i.block),
        "speaker:speaker_1:name",
        "speaker::name",
        "speaker:../:user",
      ),
      nastyText(20),
    ),
    fc.oneof(fc.constant(null), notAString, fc.dictionary(nastyText(10), junkJson, { maxKeys: 3 })),
    { maxKeys: 4 },
  );

  /** A name a person may type: hostile, but within the rules (≤ 80 characters, no control). */
  const typedName = fc
    .oneof(
      fc.constantFrom(
        "<!here>",
        "<@U0BOB0001>",
        "@channel",
        "Nguyễn Thị Lan",
        "💥",
        "&amp;",
        "\u202eevil",
        "../x",
      ),
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 80 }),
    )
    .map((name) => name.replace(/[\p{Cc},;]/gu, "").trim())
    .filter((name) => name !== "" && [...name].length <= 80);

  /** Agenda text within the rules (multi-line, no other control characters). */
  const typedContext = fc
    .array(fc.oneof(typedName, fc.constantFrom("\n", "\t", "# Agenda", "* item")), {
      maxLength: 12,
    })
    .map((parts) => parts.join(" "));

  const input = (block: string, action: string, state: fc.Arbitrary<Record<string, unknown>>) =>
    state.map((value) => ({ [block]: { [action]: value } }));
  const maybe = (arb: fc.Arbitrary<Record<string, unknown>>) => fc.option(arb, { nil: {} });
  const merge = (parts: Record<string, unknown>[]) => Object.assign({}, ...parts);

  /** A submission that passes validation, so what runs after the ack is exercised too. */
  function validFor(callbackId: string): fc.Arbitrary<unknown> {
    const language = maybe(
      input(
        INPUTS.language.block,
        INPUTS.language.action,
        fc
          .constantFrom("auto", "en", "vi", "fr")
          .map((value) => ({ type: "static_select", selected_option: { value } })),
      ),
    );
    const context = maybe(
      input(
        INPUTS.context.block,
        INPUTS.context.action,
        typedContext.map((value) => ({ type: "plain_text_input", value })),
      ),
    );
    const template = maybe(
      input(
        INPUTS.template.block,
        INPUTS.template.action,
        fileId.filter((id) => id !== "").map((id) => ({ type: "file_input", files: [{ id }] })),
      ),
    );
    if (callbackId === VIEWS.newNotes) {
      const recording = fc.oneof(
        input(
          INPUTS.recording.block,
          INPUTS.recording.action,
          fileId.filter((id) => id !== "").map((id) => ({ type: "file_input", files: [{ id }] })),
        ),
        input(
          INPUTS.recentRecording.block,
          INPUTS.recentRecording.action,
          fileId
            .filter((id) => id !== "")
            .map((value) => ({ type: "static_select", selected_option: { value } })),
        ),
      );
      const participants = maybe(
        input(
          INPUTS.participants.block,
          INPUTS.participants.action,
          fc
            .array(fc.constantFrom(ALICE, BOB, "U0NOBODY1"), { maxLength: 3 })
            .map((ids) => ({ type: "multi_users_select", selected_users: ids })),
        ),
      );
      const names = maybe(
        input(
          INPUTS.extraNames.block,
          INPUTS.extraNames.action,
          fc
            .array(typedName, { maxLength: 4 })
            .map((n) => ({ type: "plain_text_input", value: n.join(", ") })),
        ),
      );
      // Any destination: the recording is never one the app can read, so no job starts.
      const destination = input(
        INPUTS.destination.block,
        INPUTS.destination.action,
        fc
          .oneof(
            fc.constantFrom(CHANNEL, "C0OTHER01"),
            nastyText(20).filter((t) => t !== ""),
          )
          .map((id) => ({ type: "conversations_select", selected_conversation: id })),
      );
      return fc
        .tuple(recording, participants, names, context, language, template, destination)
        .map(merge);
    }
    if (callbackId === VIEWS.channelSettings) {
      const auto = input(
        INPUTS.autoTranscribe.block,
        INPUTS.autoTranscribe.action,
        fc
          .constantFrom("on", "off")
          .map((value) => ({ type: "radio_buttons", selected_option: { value } })),
      );
      const clear = maybe(
        input(
          INPUTS.clearTemplate.block,
          INPUTS.clearTemplate.action,
          fc.constant({
            type: "checkboxes",
            selected_options: [{ value: INPUTS.clearTemplate.action }],
          }),
        ),
      );
      return fc.tuple(auto, language, context, template, clear).map(merge);
    }
    const speaker = (id: string) =>
      fc
        .tuple(
          maybe(
            input(
              speakerBlock.user(id),
              SPEAKER_ACTIONS.user,
              fc
                .constantFrom(ALICE, BOB, "U0NOBODY1")
                .map((u) => ({ type: "users_select", selected_user: u })),
            ),
          ),
          maybe(
            input(
              speakerBlock.name(id),
              SPEAKER_ACTIONS.name,
              typedName.map((value) => ({ type: "plain_text_input", value })),
            ),
          ),
          maybe(
            input(
              speakerBlock.gender(id),
              SPEAKER_ACTIONS.gender,
              fc
                .constantFrom("male", "female")
                .map((value) => ({ type: "static_select", selected_option: { value } })),
            ),
          ),
        )
        .map(merge);
    return fc.tuple(speaker("speaker_1"), speaker("speaker_2"), context, template).map(merge);
  }

  function valuesFor(callbackId: string): fc.Arbitrary<unknown> {
    return fc.oneof(
      { weight: 3, arbitrary: validFor(callbackId) },
      { weight: 3, arbitrary: nearlyValid as fc.Arbitrary<unknown> },
      { weight: 1, arbitrary: wrongShape as fc.Arbitrary<unknown> },
      { weight: 1, arbitrary: junkJson },
    );
  }

  const submission = fc.constantFrom(...Object.values(VIEWS)).chain((callbackId) =>
    fc.record({
      callbackId: fc.constant(callbackId),
      metadata: metadataFor(callbackId),
      values: valuesFor(callbackId),
      user: fc.constantFrom(ALICE, BOB, "U0NOBODY1"),
    }),
  );

  function metadataText(m: Metadata): string {
    if (m.kind === "text") return m.text;
    if (m.kind === "job") return `${jobs[m.job]}${m.suffix}`;
    return JSON.stringify({ channelId: m.channelId });
  }

  /** Replaces the "SLIDES" placeholder with the id of a real file that is not a recording. */
  function withRealFiles(value: unknown): unknown {
    return JSON.parse(
      JSON.stringify(value ?? null).replaceAll('"SLIDES"', JSON.stringify(slidesId)),
    );
  }

  describe(`hostile modal submissions (${mode} mode)`, () => {
    it("answers every submission at once with errors that say something, a notice in the modal, or a plain ack followed by a reply", async () => {
      const activeBefore = await activeJobCount(h.stack);
      const createdBefore = createdJobFiles(h.stack).length;
      await fc.assert(
        fc.asyncProperty(submission, async (s) => {
          const { stack } = h;
          const payload = viewSubmissionPayload({
            callbackId: s.callbackId,
            privateMetadata: metadataText(s.metadata),
            values: {},
            user: s.user,
          }) as { view: { state: { values: unknown } } };
          payload.view.state.values = withRealFiles(s.values);
          const before = stack.fake.ephemerals.length;
          const answer = await timed((signal) =>
            sendViewSubmission(stack.url, SIGNING_SECRET, payload as Record<string, unknown>, {
              signal,
            }),
          );
          expectAnswered(answer, s.callbackId);
          expect(answer.res.status).toBe(200);

          if (answer.res.body !== "") {
            const json = answer.res.json as {
              response_action?: unknown;
              errors?: unknown;
              view?: { submit?: unknown; blocks?: unknown };
            };
            if (json.response_action === "update") {
              // What cannot go under an input of the view (a job gone, a page without that
              // input) or was not decided within the budget: said in the modal itself.
              expect(json.view, `answer ${answer.res.body.slice(0, 300)}`).toBeDefined();
              expect(json.view?.submit).toBeUndefined();
              const said = JSON.stringify(json.view?.blocks ?? []);
              expect(said.length, "an empty notice").toBeGreaterThan(2);
              expectInertText(said, "the notice");
              return;
            }
            expect(json, `answer ${answer.res.body.slice(0, 300)}`).toMatchObject({
              response_action: "errors",
            });
            const errors = Object.entries((json.errors ?? {}) as Record<string, unknown>);
            expect(
              errors.length,
              `no error message in ${answer.res.body.slice(0, 300)}`,
            ).toBeGreaterThan(0);
            for (const [block, message] of errors) {
              expect(block).not.toBe("");
              expect(typeof message).toBe("string");
              expectReadableText(String(message), `the error on ${block}`);
            }
            return;
          }
          // Accepted: the modal closes, so a new-notes request from our channel must be
          // answered there (its recording is never a readable one here).
          const fromUs = s.metadata.kind === "channel" && s.metadata.channelId === CHANNEL;
          if (s.callbackId === VIEWS.newNotes && fromUs) {
            const reply = await within(() => ephemeralsFor(stack, s.user, before)[0], 1_500);
            expect(reply, "no reply after an accepted new-notes submission").toBeDefined();
            expectInertText(reply?.text ?? "", "the reply");
          }
        }),
        { numRuns: runsIn(mode, 400) },
      );
      expect(createdJobFiles(h.stack).length).toBe(createdBefore);
      expect(await activeJobCount(h.stack)).toBeLessThanOrEqual(activeBefore + 1);
      expect((await h.stack.job(jobs.canceled))?.stage).toBe("canceled");
    }, 60_000);
  });

  /** Sends a submission with `private_metadata` and `state` set as given (even to junk). */
  async function submit(
    callbackId: string,
    privateMetadata: unknown,
    values: unknown,
    drop?: "state",
  ) {
    const payload = viewSubmissionPayload({
      callbackId,
      privateMetadata: "",
      values: {},
      user: ALICE,
    });
    const view = payload.view as Record<string, unknown> & { state: { values: unknown } };
    view.private_metadata = privateMetadata;
    view.state.values = values;
    if (drop === "state") delete (view as Record<string, unknown>).state;
    return timed((signal) => sendViewSubmission(h.stack.url, SIGNING_SECRET, payload, { signal }));
  }

  const validSettings = {
    [INPUTS.autoTranscribe.block]: {
      [INPUTS.autoTranscribe.action]: { type: "radio_buttons", selected_option: { value: "on" } },
    },
  };

  const validNewNotes = {
    [INPUTS.recentRecording.block]: {
      [INPUTS.recentRecording.action]: {
        type: "static_select",
        selected_option: { value: "F0NOTHERE1" },
      },
    },
    [INPUTS.destination.block]: {
      [INPUTS.destination.action]: { type: "conversations_select", selected_conversation: CHANNEL },
    },
  };

  describe.concurrent(`regressions: bugs the hostile submission runs found (${mode} mode)`, () => {
    it("channel settings with an unreadable private_metadata are refused with a message (not `errors: {}`)", async () => {
      for (const metadata of ["", "garbage", "{}", JSON.stringify({ channelId: "" })]) {
        const answer = await submit(VIEWS.channelSettings, metadata, validSettings);
        expectAnswered(answer, "settings");
        const errors = (answer.res.json as { errors?: Record<string, string> } | undefined)?.errors;
        expect(
          answer.res.body === "" || Object.keys(errors ?? {}).length > 0,
          `private_metadata ${JSON.stringify(metadata)} answered ${answer.res.body}`,
        ).toBe(true);
      }
    });

    it("a new-notes submission with an unreadable private_metadata gets an answer", async () => {
      const before = h.stack.fake.ephemerals.length;
      const answer = await submit(VIEWS.newNotes, "garbage", validNewNotes);
      expectAnswered(answer, "new notes");
      if (answer.res.body !== "") return; // refused in the modal: the person saw why
      // The modal closed; the recording cannot be read, and the destination channel is known.
      const reply = await within(() => ephemeralsFor(h.stack, ALICE, before)[0], 1_500);
      expect(reply, "the person was never told their recording could not be read").toBeDefined();
    });

    it("a submission whose private_metadata is not a string, or without `state`, is answered at once", async () => {
      const answers = await Promise.all([
        submit(VIEWS.speakerNames, 42, {}),
        submit(VIEWS.regenerate, { jobId: jobs.done }, {}),
        submit(VIEWS.newNotes, JSON.stringify({ channelId: CHANNEL }), {}, "state"),
        submit(VIEWS.speakerNames, jobs.naming, {}, "state"),
      ]);
      const slow = answers.map((a) => `${a.res.status} in ${Math.round(a.ms)} ms`);
      // A listener that throws before ack() leaves Slack without an answer: the person sees
      // "We had some trouble connecting". Each must be answered (errors or ack) at once.
      expect(slow.filter((s) => !s.startsWith("200"))).toEqual([]);
    });
  });
}
