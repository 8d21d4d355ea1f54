import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Job } from "../../../../src/jobs/index.ts";
import { ACTIONS, VIEWS } from "../../../../src/slack/ids.ts";
import { openSpeakerModal } from "../../../../src/slack/listeners/actions/open-speaker-modal.ts";
import {
  buildCommandRefusal,
  buildPermissionRefusal,
} from "../../../../src/slack/views/command-replies.ts";
import { buildLoadingModal } from "../../../../src/slack/views/notice-modal.ts";
import { buildSpeakerModal } from "../../../../src/slack/views/speaker-modal.ts";
import { platformError } from "../../../../support/helpers/fake-web-client.ts";
import {
  ALICE,
  asRequest,
  BOB,
  buildActionArgs,
  buildListenerDeps,
  clickOn,
  ephemeralTexts,
  fakeAck,
  GUEST,
  LAN,
  type ListenerKit,
  ourJob,
} from "../../../../support/helpers/listener-args.ts";
import {
  OPENED,
  shownViews,
  textOf,
  withModalMethods,
} from "../../../../support/helpers/modal-kit.ts";
import { done, naming, quotes, writing } from "../../views/fixtures.ts";

let kit: ListenerKit;
let views: ReturnType<typeof withModalMethods>;
beforeEach(async () => {
  kit = await buildListenerDeps();
  views = withModalMethods(kit);
});
afterEach(() => kit.close());

const TRIGGER = "1700000000.3.00112233445566778899aabbccddeeff";

async function click(mode: "names" | "regenerate", job: Job, user: string) {
  const action = mode === "names" ? ACTIONS.nameSpeakers : ACTIONS.regenerate;
  const body = clickOn(job, action, user, { triggerId: TRIGGER });
  const ack = fakeAck();
  await asRequest(() => openSpeakerModal(kit.deps, mode)(buildActionArgs(kit, body, { ack })));
  return ack;
}

/** What the clicker alone was told. */
const toldClicker = () => ephemeralTexts(kit);

/** The modal opened with the trigger at once, then filled with `view` (the open's hash). */
function expectOpenedThenFilled(view: unknown) {
  expect(
    views.open.mock.calls.map(([args]) => ("trigger_id" in args ? args.trigger_id : "")),
  ).toEqual([TRIGGER]);
  expect(views.update.mock.calls).toEqual([[{ view_id: OPENED.id, hash: OPENED.hash, view }]]);
}

describe("Name speakers", () => {
  it("opens the speaker modal for the job's starter", async () => {
    const job = await kit.seed(ourJob(naming()));
    const ack = await click("names", job, ALICE);
    expect(ack).toHaveBeenCalledOnce();
    const view = buildSpeakerModal(job, { locale: "en", mode: "names", quotes });
    expectOpenedThenFilled(view);
    // The quotes come from their blob: the record holds a reference only.
    expect(job.stage === "naming" && "blob" in job.quotes).toBe(true);
    expect(JSON.stringify(view.blocks)).toContain("We ship on Friday unless QA finds something.");
  });

  it("opens it for a member of the channel too, in their language", async () => {
    const job = await kit.seed(ourJob(naming()));
    await click("names", job, LAN);
    const view = buildSpeakerModal(job, { locale: "vi", mode: "names", quotes });
    expectOpenedThenFilled(view);
  });

  it("opens at once with a loading view of the same modal, before any Slack look-up", async () => {
    const job = await kit.seed(ourJob(naming()));
    await click("names", job, LAN);
    const [opened] = views.open.mock.calls[0] ?? [];
    expect(opened?.view).toEqual(
      buildLoadingModal(
        { callbackId: VIEWS.speakerNames, privateMetadata: job.id, title: "Name the speakers" },
        "en",
      ),
    );
    const firstLookUp = Math.min(
      ...kit.slack.users.info.mock.invocationCallOrder,
      ...kit.slack.conversations.members.mock.invocationCallOrder,
    );
    expect(views.open.mock.invocationCallOrder[0]).toBeLessThan(firstLookUp);
  });

  it("shows a guest who may name the speakers, in the modal, and opens no speaker modal", async () => {
    const job = await kit.seed(ourJob(naming()));
    await click("names", job, GUEST);
    const shown = shownViews(kit).at(-1);
    expect(shown?.submit).toBeUndefined();
    expect(textOf(shown)).toContain(
      buildPermissionRefusal("starter_or_member", "names", "en").text,
    );
    expect(toldClicker()).toEqual([]);
  });

  it("shows a sentence, not a dead modal, when the fill fails", async () => {
    const job = await kit.seed(ourJob(naming()));
    kit.slack.users.info.mockRejectedValueOnce(new Error("boom"));
    kit.deps.permissions.jobAction = async () => {
      throw new Error("permissions down");
    };
    await click("names", job, LAN);
    expect(textOf(shownViews(kit).at(-1))).toContain("Something went wrong on my side");
  });

  it("does not overwrite a view that changed since it opened (a stale hash loses)", async () => {
    const job = await kit.seed(ourJob(naming()));
    views.update.mockRejectedValueOnce(platformError("hash_conflict"));
    await click("names", job, ALICE);
    expect(views.update).toHaveBeenCalledOnce();
    expect(kit.logged("info")).toContain("modal not filled: it changed or closed meanwhile");
  });

  it("tells the clicker when Slack would not open the modal (the trigger expired)", async () => {
    const job = await kit.seed(ourJob(naming()));
    views.open.mockRejectedValueOnce(platformError("expired_trigger_id"));
    await click("names", job, ALICE);
    expect(toldClicker()).toEqual(["Slack did not let me open the form in time. Try again."]);
    expect(views.update).not.toHaveBeenCalled();
  });

  it("says the job no longer waits for names once it is being written", async () => {
    const job = await kit.seed(ourJob(writing));
    await click("names", job, ALICE);
    expect(toldClicker()).toEqual(["That job is no longer waiting for names."]);
    expect(kit.slack.views.open).not.toHaveBeenCalled();
  });

  it("says the job is gone when it expired", async () => {
    await click("names", ourJob(naming()), ALICE);
    expect(toldClicker()).toEqual([buildCommandRefusal("not_found", "names", "en").text]);
  });

  it("does nothing but ack a click without a trigger_id (no modal can open)", async () => {
    const job = await kit.seed(ourJob(naming()));
    const body = clickOn(job, ACTIONS.nameSpeakers, ALICE);
    delete body.trigger_id;
    const ack = fakeAck();
    await asRequest(() => openSpeakerModal(kit.deps, "names")(buildActionArgs(kit, body, { ack })));
    expect(ack).toHaveBeenCalledOnce();
    expect(kit.slack.views.open).not.toHaveBeenCalled();
    expect(kit.slack.chat.postEphemeral).not.toHaveBeenCalled();
  });
});

describe("Regenerate", () => {
  it("opens the regenerate modal on finished notes for their starter", async () => {
    const job = await kit.seed(ourJob(done()));
    await click("regenerate", job, ALICE);
    const view = buildSpeakerModal(job, { locale: "en", mode: "regenerate", quotes });
    expectOpenedThenFilled(view);
  });

  it("refuses, in the modal, a member who is neither the starter nor an admin", async () => {
    const job = await kit.seed(ourJob(done()));
    await click("regenerate", job, BOB);
    const refusal = buildPermissionRefusal("starter_or_admin", "regenerate", "en").text;
    expect(textOf(shownViews(kit).at(-1))).toContain(refusal);
    expect(shownViews(kit).every((view) => view.submit === undefined)).toBe(true);
  });

  it("says when the notes may be regenerated again, during the cooldown", async () => {
    const job = await kit.seed(ourJob(done({ regeneratedAt: kit.clock.now - 15_000 })));
    await click("regenerate", job, ALICE);
    expect(toldClicker()).toEqual([
      buildCommandRefusal("cooldown", "regenerate", "en", 45_000).text,
    ]);
    expect(kit.slack.views.open).not.toHaveBeenCalled();
  });

  it("opens again once the cooldown is over", async () => {
    const job = await kit.seed(ourJob(done({ regeneratedAt: kit.clock.now - 60_000 })));
    await click("regenerate", job, ALICE);
    expect(kit.slack.views.open).toHaveBeenCalledOnce();
    expect(shownViews(kit).at(-1)?.callback_id).toBe(VIEWS.regenerate);
  });

  it("says notes can be regenerated only once they are ready", async () => {
    const job = await kit.seed(ourJob(writing));
    await click("regenerate", job, ALICE);
    expect(toldClicker()).toEqual(["Notes can be regenerated only once they are ready."]);
  });
});
