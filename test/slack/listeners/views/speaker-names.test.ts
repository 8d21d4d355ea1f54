import type { ModalView } from "@slack/types";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Job } from "../../../../src/jobs/index.ts";
import { INPUTS, SPEAKER_ACTIONS, speakerBlock, VIEWS } from "../../../../src/slack/ids.ts";
import { speakerNamesSubmitted } from "../../../../src/slack/listeners/views/speaker-names.ts";
import { t } from "../../../../src/slack/messages/catalog.ts";
import {
  buildCommandRefusal,
  permissionSentence,
} from "../../../../src/slack/views/command-replies.ts";
import { sentenceReply } from "../../../../src/slack/views/notice-modal.ts";
import { buildSpeakerModal, speakerPages } from "../../../../src/slack/views/speaker-modal.ts";
import { viewSubmissionPayload } from "../../../../support/fake-slack/slack-payloads.ts";
import {
  ALICE,
  asRequest,
  BOB,
  buildListenerDeps,
  buildViewArgs,
  CHANNEL,
  docxBytes,
  ephemerals,
  fakeAck,
  GUEST,
  knowUpload,
  type ListenerKit,
  ourJob,
  TEAM,
} from "../../../../support/helpers/listener-args.ts";
import {
  OPENED,
  slowDown,
  textOf,
  withModalMethods,
} from "../../../../support/helpers/modal-kit.ts";
import {
  fileInput,
  type StateValues,
  stateValues,
  staticSelect,
  textInput,
  usersSelect,
} from "../../../../support/helpers/view-state.ts";
import { done, naming } from "../../views/fixtures.ts";

let kit: ListenerKit;
let views: ReturnType<typeof withModalMethods>;
beforeEach(async () => {
  kit = await buildListenerDeps();
  views = withModalMethods(kit);
});
afterEach(() => kit.close());

type Mode = "names" | "regenerate";
interface Speaker {
  user?: string;
  name?: string;
  gender?: "male" | "female";
}

/** The speaker modal's inputs for the fixture jobs' three speakers, plus Regenerate's own. */
function modalValues(
  speakers: Record<string, Speaker>,
  extra: { context?: string; template?: string } = {},
): StateValues {
  const inputs = ["speaker_1", "speaker_2", "speaker_3"].flatMap((id) => {
    const given = speakers[id] ?? {};
    return [
      [speakerBlock.user(id), SPEAKER_ACTIONS.user, usersSelect(given.user)],
      [speakerBlock.name(id), SPEAKER_ACTIONS.name, textInput(given.name)],
      [speakerBlock.gender(id), SPEAKER_ACTIONS.gender, staticSelect(given.gender)],
    ] as const;
  });
  const template =
    extra.template === undefined ? fileInput() : fileInput({ id: extra.template, name: "t.docx" });
  return stateValues([
    ...inputs,
    [INPUTS.context.block, INPUTS.context.action, textInput(extra.context)],
    [INPUTS.template.block, INPUTS.template.action, template],
  ]);
}

interface SubmitOptions {
  /** The view's own blocks, as Slack sends them back (none by default). */
  blocks?: unknown[];
  viewId?: string;
  decisionMs?: number;
  /** `private_metadata` as given (the job id alone by default: the first page). */
  metadata?: string;
}

async function submit(
  mode: Mode,
  jobId: string,
  values: StateValues,
  /** `null`: a payload without a user. */
  user: string | null = ALICE,
  options: SubmitOptions = {},
) {
  const body = viewSubmissionPayload({
    callbackId: mode === "names" ? VIEWS.speakerNames : VIEWS.regenerate,
    privateMetadata: options.metadata ?? jobId,
    values,
    user: user ?? ALICE,
    teamId: TEAM,
    ...(options.blocks === undefined ? {} : { blocks: options.blocks }),
    ...(options.viewId === undefined ? {} : { viewId: options.viewId }),
  });
  if (user === null) delete body.user;
  const ack = fakeAck();
  const listener = speakerNamesSubmitted(
    kit.deps,
    mode,
    options.decisionMs === undefined ? {} : { decisionMs: options.decisionMs },
  );
  await asRequest(() => listener(buildViewArgs(kit, body, { ack })));
  return ack;
}

const FIRST = speakerBlock.name("speaker_1");
const errorsOn = (errors: Record<string, string>) => [[{ response_action: "errors", errors }]];
const noteOf = async (job: Job) => {
  const after = await kit.jobs.get(job.id);
  return after !== undefined && "note" in after ? after.note : undefined;
};

describe("speakerNamesSubmitted: names", () => {
  it("writes the notes with a member's real name, a typed name and labels for the rest", async () => {
    const job = await kit.seed(ourJob(naming()));
    const values = modalValues({
      speaker_1: { user: BOB },
      speaker_2: { name: "Lan", gender: "female" },
    });
    const ack = await submit("names", job.id, values);
    expect(ack.mock.calls).toEqual([[]]);
    expect((await kit.jobs.get(job.id))?.stage).toBe("writing");
    expect((await noteOf(job))?.speakerMap).toEqual([
      { speakerId: "speaker_1", name: "Bob Le" },
      { speakerId: "speaker_2", name: "Lan", gender: "female" },
      { speakerId: "speaker_3", name: "Speaker 3" },
    ]);
    expect(kit.runner.kick).toHaveBeenCalledWith(job.id);
  });

  it("lets a typed name win over the chosen member's", async () => {
    const job = await kit.seed(ourJob(naming()));
    await submit("names", job.id, modalValues({ speaker_1: { user: BOB, name: "Robert" } }));
    expect((await noteOf(job))?.speakerMap[0]).toEqual({ speakerId: "speaker_1", name: "Robert" });
  });

  it("shows a name that is too long on its own field and keeps the job waiting", async () => {
    const job = await kit.seed(ourJob(naming()));
    const ack = await submit("names", job.id, modalValues({ speaker_2: { name: "N".repeat(81) } }));
    expect(ack.mock.calls).toEqual(
      errorsOn({
        [speakerBlock.name("speaker_2")]: t("en", "validation.name_too_long", { max: 80 }),
      }),
    );
    expect((await kit.jobs.get(job.id))?.stage).toBe("naming");
  });

  it("says on the modal that the job is gone, under the first input the view shows", async () => {
    const { blocks } = buildSpeakerModal(ourJob(naming()), { locale: "en", mode: "names" });
    const ack = await submit("names", "job-expired", modalValues({}), ALICE, { blocks });
    expect(ack.mock.calls).toEqual(
      errorsOn({ [FIRST]: buildCommandRefusal("not_found", "names", "en").text }),
    );
  });

  it("says it in the modal itself when the view shows no input an error could go under", async () => {
    const ack = await submit("names", "job-expired", stateValues([]));
    const [answer] = ack.mock.calls[0] ?? [];
    expect(answer).toMatchObject({ response_action: "update", view: { type: "modal" } });
    expect(answer).not.toHaveProperty("view.submit");
    expect(textOf((answer as { view: ModalView }).view)).toContain(
      buildCommandRefusal("not_found", "names", "en").text,
    );
  });

  it("never keys an error to a block the view does not have", async () => {
    const job = await kit.seed(ourJob(naming()));
    const { blocks } = buildSpeakerModal(job, { locale: "en", mode: "names" });
    // A context only Regenerate's view has, with a control character in it.
    const values = modalValues({}, { context: "a\u0007b" });
    const ack = await submit("names", job.id, values, ALICE, { blocks });
    const [answer] = ack.mock.calls[0] ?? [];
    expect(answer).toMatchObject({ response_action: "update" });
    expect(textOf((answer as { view: ModalView }).view)).toContain("control");
    expect((await kit.jobs.get(job.id))?.stage).toBe("naming");
  });

  it("says on the modal that the job no longer waits for names", async () => {
    const job = await kit.seed(ourJob(done()));
    const ack = await submit("names", job.id, modalValues({ speaker_1: { name: "Lan" } }));
    expect(ack.mock.calls).toEqual(
      errorsOn({ [FIRST]: "That job is no longer waiting for names." }),
    );
  });

  it("checks again on submission who may name the speakers", async () => {
    const job = await kit.seed(ourJob(naming()));
    const ack = await submit("names", job.id, modalValues({ speaker_1: { name: "Lan" } }), GUEST);
    expect(ack.mock.calls).toEqual(
      errorsOn({ [FIRST]: permissionSentence("starter_or_member", "names", "en") }),
    );
    expect((await kit.jobs.get(job.id))?.stage).toBe("naming");
  });

  it("only acks a submission without a user", async () => {
    const job = await kit.seed(ourJob(naming()));
    const ack = await submit("names", job.id, modalValues({}), null);
    expect(ack.mock.calls).toEqual([[]]);
    expect((await kit.jobs.get(job.id))?.stage).toBe("naming");
  });
});

describe("speakerNamesSubmitted: regenerate", () => {
  it("rewrites the notes with new names, context and template", async () => {
    const job = await kit.seed(ourJob(done()));
    const template = knowUpload(kit, {
      id: "F0TEMPL002",
      name: "minutes.docx",
      bytes: docxBytes(),
    });
    const values = modalValues({ speaker_2: { name: "Minh" } }, { context: "Budget", template });
    expect((await submit("regenerate", job.id, values)).mock.calls).toEqual([[]]);
    const after = await kit.jobs.get(job.id);
    expect(after).toMatchObject({ stage: "writing", regeneratedAt: kit.clock.now });
    const note = await noteOf(job);
    expect(note?.contextText).toBe("Budget");
    expect(note?.speakerMap.map((entry) => entry.name)).toEqual(["Speaker 1", "Minh", "Speaker 3"]);
    expect(await kit.store.get("templates", note?.templateId ?? "")).toMatchObject({
      filename: "minutes.docx",
    });
    expect(ephemerals(kit)).toEqual([]);
  });

  it("refuses a template the starter did not upload and cannot see, and regenerates nothing", async () => {
    const job = await kit.seed(ourJob(done()));
    knowUpload(kit, { id: "F0BOBDOCX4", name: "bob.docx", bytes: docxBytes(9) });
    kit.workspace.files.set("F0BOBDOCX4", {
      ...kit.workspace.files.get("F0BOBDOCX4"),
      user: BOB,
      groups: ["C0OTHER001"],
    });
    const ack = await submit("regenerate", job.id, modalValues({}, { template: "F0BOBDOCX4" }));
    expect(ack.mock.calls).toEqual(
      errorsOn({ [INPUTS.template.block]: t("en", "permission.template") }),
    );
    expect((await kit.jobs.get(job.id))?.stage).toBe("done");
    expect(kit.fileRequests()).toEqual([]);
  });

  it("refuses an admin's Regenerate once they are no longer an admin", async () => {
    const job = await kit.seed(ourJob(done()));
    const values = modalValues({ speaker_1: { name: "Lan" } });
    kit.workspace.users.set(BOB, { ...kit.workspace.users.get(BOB), is_admin: true });
    expect((await submit("regenerate", job.id, values, BOB)).mock.calls).toEqual([[]]);
    const again = await kit.seed(ourJob(done()));
    kit.workspace.users.set(BOB, { ...kit.workspace.users.get(BOB), is_admin: false });
    const ack = await submit("regenerate", again.id, values, BOB);
    expect(ack.mock.calls).toEqual(
      errorsOn({ [FIRST]: permissionSentence("starter_or_admin", "regenerate", "en") }),
    );
    expect((await kit.jobs.get(again.id))?.stage).toBe("done");
  });

  it("regenerates anyway and says so when the template cannot be read", async () => {
    const job = await kit.seed(ourJob(done()));
    await submit("regenerate", job.id, modalValues({}, { template: "F0NOTHERE1" }));
    expect((await kit.jobs.get(job.id))?.stage).toBe("writing");
    expect((await noteOf(job))?.templateId).toBeUndefined();
    expect(ephemerals(kit)).toEqual([
      { channel: CHANNEL, user: ALICE, ...sentenceReply(t("en", "template.unreadable")) },
    ]);
  });

  it("tells the person when they may regenerate again, during the cooldown", async () => {
    const job = await kit.seed(ourJob(done({ regeneratedAt: kit.clock.now - 10_000 })));
    const ack = await submit("regenerate", job.id, modalValues({}));
    expect(ack.mock.calls).toEqual([[]]);
    expect(ephemerals(kit)).toEqual([
      {
        channel: CHANNEL,
        user: ALICE,
        ...buildCommandRefusal("cooldown", "regenerate", "en", 50_000),
      },
    ]);
    expect((await kit.jobs.get(job.id))?.stage).toBe("done");
  });

  it("refuses a member who is neither the starter nor an admin", async () => {
    const job = await kit.seed(ourJob(done()));
    const ack = await submit("regenerate", job.id, modalValues({}), BOB);
    expect(ack.mock.calls).toEqual(
      errorsOn({ [FIRST]: permissionSentence("starter_or_admin", "regenerate", "en") }),
    );
    expect((await kit.jobs.get(job.id))?.stage).toBe("done");
  });

  it("says notes can be regenerated only once they are ready", async () => {
    const job = await kit.seed(ourJob(naming()));
    const ack = await submit("regenerate", job.id, modalValues({}));
    expect(ack.mock.calls).toEqual(
      errorsOn({ [FIRST]: "Notes can be regenerated only once they are ready." }),
    );
  });
});

describe("speakerNamesSubmitted: any number of speakers, a page at a time", () => {
  /** 30 speakers, the last one heard the most. */
  const thirty = Array.from({ length: 30 }, (_, i) => ({
    speakerId: `speaker_${i + 1}`,
    seconds: 100 + i,
    share: 1 / 30,
  }));
  const idsOf = (page: { speakerId: string }[] | undefined) => (page ?? []).map((s) => s.speakerId);
  const typed = (ids: string[]) =>
    stateValues(
      ids.map(
        (id) => [speakerBlock.name(id), SPEAKER_ACTIONS.name, textInput(`Name ${id}`)] as const,
      ),
    );
  const pageTwo = (jobId: string) => JSON.stringify({ jobId, page: 1 });

  it("keeps the first page, shows the next, and names every one of 30 speakers", async () => {
    const job = await kit.seed(ourJob(naming({ speakers: thirty })));
    const pages = speakerPages(job);
    expect(pages.map((page) => page.length)).toEqual([19, 11]);
    expect(pages[0]?.[0]?.speakerId).toBe("speaker_30");
    const first = await submit("names", job.id, typed(idsOf(pages[0])), ALICE, {
      viewId: OPENED.id,
    });
    const [answer] = first.mock.calls[0] ?? [];
    expect(answer).toMatchObject({
      response_action: "update",
      view: { private_metadata: pageTwo(job.id), callback_id: VIEWS.speakerNames },
    });
    expect((await kit.jobs.get(job.id))?.stage).toBe("naming");
    const last = await submit("names", job.id, typed(idsOf(pages[1])), ALICE, {
      viewId: OPENED.id,
      metadata: pageTwo(job.id),
    });
    expect(last.mock.calls).toEqual([[]]);
    const map = (await noteOf(job))?.speakerMap ?? [];
    expect(map).toHaveLength(30);
    expect(map.filter((entry) => entry.name !== `Name ${entry.speakerId}`)).toEqual([]);
    // Nothing of the names stays kept once they are submitted.
    expect(await kit.services.modals.read(`speakers:${OPENED.id}`)).toBeUndefined();
  });

  it("shows errors of the second page on its own inputs only", async () => {
    const job = await kit.seed(ourJob(naming({ speakers: thirty })));
    const second = idsOf(speakerPages(job)[1]);
    const values = stateValues([
      [speakerBlock.name(second[0] ?? ""), SPEAKER_ACTIONS.name, textInput("N".repeat(81))],
    ]);
    const ack = await submit("names", job.id, values, ALICE, { metadata: pageTwo(job.id) });
    expect(ack.mock.calls).toEqual(
      errorsOn({
        [speakerBlock.name(second[0] ?? "")]: t("en", "validation.name_too_long", { max: 80 }),
      }),
    );
  });

  it("refuses a guest on the last page under that page's first input", async () => {
    const job = await kit.seed(ourJob(naming({ speakers: thirty })));
    const second = idsOf(speakerPages(job)[1]);
    const ack = await submit("names", job.id, typed(second), GUEST, { metadata: pageTwo(job.id) });
    expect(ack.mock.calls).toEqual(
      errorsOn({
        [speakerBlock.name(second[0] ?? "")]: permissionSentence(
          "starter_or_member",
          "names",
          "en",
        ),
      }),
    );
  });
});

describe("speakerNamesSubmitted: in time, once", () => {
  it("answers a second delivery of the names as the first did, and writes the notes once", async () => {
    const job = await kit.seed(ourJob(naming()));
    const values = modalValues({ speaker_1: { name: "Lan" } });
    const first = await submit("names", job.id, values, ALICE, { viewId: "V0NAMES001" });
    const again = await submit("names", job.id, values, ALICE, { viewId: "V0NAMES001" });
    expect(first.mock.calls).toEqual([[]]);
    expect(again.mock.calls).toEqual([[]]);
    expect((await kit.jobs.get(job.id))?.stage).toBe("writing");
    // Not "That job is no longer waiting for names": the second delivery did nothing.
    expect(ephemerals(kit)).toEqual([]);
  });

  it("answers in time when Slack is slow to say who may, and shows how it went", async () => {
    const job = await kit.seed(ourJob(naming()));
    slowDown(kit.slack.conversations.members, 150);
    const values = modalValues({ speaker_1: { name: "Minh" } });
    const ack = await submit("names", job.id, values, BOB, { viewId: OPENED.id, decisionMs: 20 });
    const [answer] = ack.mock.calls[0] ?? [];
    expect(answer).toMatchObject({ response_action: "update" });
    expect(textOf((answer as { view: ModalView }).view)).toContain("Slack is slow to answer");
    expect((await kit.jobs.get(job.id))?.stage).toBe("writing");
    const shown = views.update.mock.calls.at(-1)?.[0].view as ModalView;
    expect(textOf(shown)).toContain("The notes are being written with these names");
  });

  it("says in the modal that a slow check refused, and changes nothing", async () => {
    const job = await kit.seed(ourJob(naming()));
    slowDown(kit.slack.conversations.members, 150);
    const values = modalValues({ speaker_1: { name: "X" } });
    await submit("names", job.id, values, GUEST, { viewId: OPENED.id, decisionMs: 20 });
    const shown = views.update.mock.calls.at(-1)?.[0].view as ModalView;
    expect(textOf(shown)).toContain(permissionSentence("starter_or_member", "names", "en"));
    expect((await kit.jobs.get(job.id))?.stage).toBe("naming");
  });
});
