import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Job } from "../../../../src/jobs/index.ts";
import { INPUTS, SPEAKER_ACTIONS, speakerBlock, VIEWS } from "../../../../src/slack/ids.ts";
import { speakerNamesSubmitted } from "../../../../src/slack/listeners/views/speaker-names.ts";
import { t } from "../../../../src/slack/messages/index.ts";
import { buildCommandRefusal, permissionSentence } from "../../../../src/slack/views/index.ts";
import { viewSubmissionPayload } from "../../../fakes/slack/slack-payloads.ts";
import {
  ALICE,
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
} from "../../../helpers/listener-args.ts";
import {
  fileInput,
  type StateValues,
  stateValues,
  staticSelect,
  textInput,
  usersSelect,
} from "../../../helpers/view-state.ts";
import { done, naming } from "../../views/fixtures.ts";

let kit: ListenerKit;
beforeEach(async () => {
  kit = await buildListenerDeps();
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

async function submit(
  mode: Mode,
  jobId: string,
  values: StateValues,
  /** `null`: a payload without a user. */
  user: string | null = ALICE,
) {
  const body = viewSubmissionPayload({
    callbackId: mode === "names" ? VIEWS.speakerNames : VIEWS.regenerate,
    privateMetadata: jobId,
    values,
    user: user ?? ALICE,
    teamId: TEAM,
  });
  if (user === null) delete body.user;
  const ack = fakeAck();
  await speakerNamesSubmitted(kit.deps, mode)(buildViewArgs(kit, body, { ack }));
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
      { speaker_id: "speaker_1", name: "Bob Le" },
      { speaker_id: "speaker_2", name: "Lan", gender: "female" },
      { speaker_id: "speaker_3", name: "Speaker 3" },
    ]);
    expect(kit.runner.kick).toHaveBeenCalledWith(job.id);
  });

  it("lets a typed name win over the chosen member's", async () => {
    const job = await kit.seed(ourJob(naming()));
    await submit("names", job.id, modalValues({ speaker_1: { user: BOB, name: "Robert" } }));
    expect((await noteOf(job))?.speakerMap[0]).toEqual({ speaker_id: "speaker_1", name: "Robert" });
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

  it("says on the modal that the job is gone", async () => {
    const ack = await submit("names", "job-expired", modalValues({}));
    expect(ack.mock.calls).toEqual(
      errorsOn({ [FIRST]: buildCommandRefusal("not_found", "names", "en").text }),
    );
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
      { channel: CHANNEL, user: ALICE, text: t("en", "template.unreadable"), blocks: [] },
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
