import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Job } from "../../../../src/jobs/index.ts";
import { ACTIONS } from "../../../../src/slack/ids.ts";
import { openSpeakerModal } from "../../../../src/slack/listeners/actions/open-speaker-modal.ts";
import {
  buildCommandRefusal,
  buildPermissionRefusal,
  buildSpeakerModal,
} from "../../../../src/slack/views/index.ts";
import {
  ALICE,
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
} from "../../../helpers/listener-args.ts";
import { done, naming, quotes, writing } from "../../views/fixtures.ts";

let kit: ListenerKit;
beforeEach(async () => {
  kit = await buildListenerDeps();
});
afterEach(() => kit.close());

const TRIGGER = "1700000000.3.00112233445566778899aabbccddeeff";

async function click(mode: "names" | "regenerate", job: Job, user: string) {
  const action = mode === "names" ? ACTIONS.nameSpeakers : ACTIONS.regenerate;
  const body = clickOn(job, action, user, { triggerId: TRIGGER });
  const ack = fakeAck();
  await openSpeakerModal(kit.deps, mode)(buildActionArgs(kit, body, { ack }));
  return ack;
}

/** What the clicker alone was told. */
const toldClicker = () => ephemeralTexts(kit);

describe("Name speakers", () => {
  it("opens the speaker modal for the job's starter", async () => {
    const job = await kit.seed(ourJob(naming()));
    const ack = await click("names", job, ALICE);
    expect(ack).toHaveBeenCalledOnce();
    const view = buildSpeakerModal(job, { locale: "en", mode: "names", quotes });
    expect(kit.slack.views.open.mock.calls).toEqual([[{ trigger_id: TRIGGER, view }]]);
    // The quotes come from their blob: the record holds a reference only.
    expect(job.stage === "naming" && "blob" in job.quotes).toBe(true);
    expect(JSON.stringify(view.blocks)).toContain("We ship on Friday unless QA finds something.");
  });

  it("opens it for a member of the channel too, in their language", async () => {
    const job = await kit.seed(ourJob(naming()));
    await click("names", job, LAN);
    const view = buildSpeakerModal(job, { locale: "vi", mode: "names", quotes });
    expect(kit.slack.views.open.mock.calls).toEqual([[{ trigger_id: TRIGGER, view }]]);
  });

  it("tells a guest who may name the speakers, and opens nothing", async () => {
    const job = await kit.seed(ourJob(naming()));
    await click("names", job, GUEST);
    expect(toldClicker()).toEqual([
      buildPermissionRefusal("starter_or_member", "names", "en").text,
    ]);
    expect(kit.slack.views.open).not.toHaveBeenCalled();
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
    await openSpeakerModal(kit.deps, "names")(buildActionArgs(kit, body, { ack }));
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
    expect(kit.slack.views.open.mock.calls).toEqual([[{ trigger_id: TRIGGER, view }]]);
  });

  it("refuses a member who is neither the starter nor an admin", async () => {
    const job = await kit.seed(ourJob(done()));
    await click("regenerate", job, BOB);
    expect(toldClicker()).toEqual([
      buildPermissionRefusal("starter_or_admin", "regenerate", "en").text,
    ]);
    expect(kit.slack.views.open).not.toHaveBeenCalled();
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
  });

  it("says notes can be regenerated only once they are ready", async () => {
    const job = await kit.seed(ourJob(writing));
    await click("regenerate", job, ALICE);
    expect(toldClicker()).toEqual(["Notes can be regenerated only once they are ready."]);
  });
});
