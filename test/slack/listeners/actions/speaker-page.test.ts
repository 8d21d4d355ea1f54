import type { InputBlock, ModalView } from "@slack/types";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Job } from "../../../../src/jobs/index.ts";
import {
  ACTIONS,
  MODAL_BLOCKS,
  SPEAKER_ACTIONS,
  speakerBlock,
  VIEWS,
} from "../../../../src/slack/ids.ts";
import { speakerNamesSubmitted } from "../../../../src/slack/listeners/views/speaker-names.ts";
import { speakerPages } from "../../../../src/slack/views/speaker-modal.ts";
import { viewSubmissionPayload } from "../../../../support/fake-slack/slack-payloads.ts";
import { platformError } from "../../../../support/helpers/fake-web-client.ts";
import {
  ALICE,
  actionHandlers,
  asRequest,
  buildActionArgs,
  buildListenerDeps,
  buildViewArgs,
  fakeAck,
  type ListenerKit,
  ourJob,
  TEAM,
} from "../../../../support/helpers/listener-args.ts";
import { OPENED, withModalMethods } from "../../../../support/helpers/modal-kit.ts";
import {
  type StateValues,
  stateValues,
  textInput,
} from "../../../../support/helpers/view-state.ts";
import { naming } from "../../views/fixtures.ts";

let kit: ListenerKit;
let views: ReturnType<typeof withModalMethods>;
beforeEach(async () => {
  kit = await buildListenerDeps();
  views = withModalMethods(kit);
});
afterEach(() => kit.close());

/** 30 speakers: two pages. */
const thirty = Array.from({ length: 30 }, (_, i) => ({
  speakerId: `speaker_${i + 1}`,
  seconds: 100 + i,
  share: 1 / 30,
}));
const pageIds = (job: Job, page: number) =>
  (speakerPages(job)[page] ?? []).map((speaker) => speaker.speakerId);
const typed = (ids: string[], prefix: string): StateValues =>
  stateValues(
    ids.map(
      (id) => [speakerBlock.name(id), SPEAKER_ACTIONS.name, textInput(`${prefix} ${id}`)] as const,
    ),
  );
const metadataOf = (job: Job, page: number) =>
  page === 0 ? job.id : JSON.stringify({ jobId: job.id, page });

/** Submits a page of the modal (its Next, or the last page's submit). */
async function submitPage(job: Job, page: number, values: StateValues) {
  const body = viewSubmissionPayload({
    callbackId: VIEWS.speakerNames,
    privateMetadata: metadataOf(job, page),
    values,
    user: ALICE,
    teamId: TEAM,
    viewId: OPENED.id,
  });
  const ack = fakeAck();
  await asRequest(() =>
    speakerNamesSubmitted(kit.deps, "names")(buildViewArgs(kit, body, { ack })),
  );
  return ack.mock.calls[0]?.[0] as { view?: ModalView } | undefined;
}

/** "Previous page" clicked in the modal on `page`, as Slack sends a click inside a view. */
async function clickPrevious(job: Job, page: number, values: StateValues, hash = OPENED.hash) {
  const body = {
    type: "block_actions",
    user: { id: ALICE, username: "alice", name: "alice", team_id: TEAM },
    api_app_id: "A0FAKEAPP",
    trigger_id: "1700000000.5.00112233445566778899aabbccddeeff",
    team: { id: TEAM, domain: "fake-workspace" },
    container: { type: "view", view_id: OPENED.id },
    view: {
      id: OPENED.id,
      hash,
      type: "modal",
      callback_id: VIEWS.speakerNames,
      private_metadata: metadataOf(job, page),
      state: { values },
    },
    actions: [
      {
        type: "button",
        action_id: ACTIONS.speakersPrevious,
        block_id: MODAL_BLOCKS.speakerPages,
        value: job.id,
      },
    ],
  };
  const handler = actionHandlers(kit.deps).get(ACTIONS.speakersPrevious);
  if (handler === undefined) throw new Error("Previous page is not wired");
  const ack = fakeAck();
  await asRequest(() => handler(buildActionArgs(kit, body, { ack })));
  return ack;
}

const nameValue = (view: ModalView | undefined, id: string) =>
  (view?.blocks.find((b) => b.block_id === speakerBlock.name(id)) as InputBlock | undefined)
    ?.element as { initial_value?: string } | undefined;

describe("Previous page in the speaker modal", () => {
  it("shows the page before with what was entered, keeping this page's input for later", async () => {
    const job = await kit.seed(ourJob(naming({ speakers: thirty })));
    const first = pageIds(job, 0);
    const second = pageIds(job, 1);
    const next = await submitPage(job, 0, typed(first, "First"));
    expect(next?.view?.blocks.some((b) => b.block_id === MODAL_BLOCKS.speakerPages)).toBe(true);
    const ack = await clickPrevious(job, 1, typed(second, "Second"));
    expect(ack).toHaveBeenCalledOnce();
    const [update] = views.update.mock.calls.map(([args]) => args);
    expect(update).toMatchObject({ view_id: OPENED.id, hash: OPENED.hash });
    const shown = update?.view as ModalView;
    expect(shown.private_metadata).toBe(job.id);
    expect(nameValue(shown, first[0] ?? "")?.initial_value).toBe(`First ${first[0]}`);
    // Next again: the second page comes back as it was left.
    const again = await submitPage(job, 0, typed(first, "First"));
    expect(nameValue(again?.view, second[0] ?? "")?.initial_value).toBe(`Second ${second[0]}`);
    // And the last submission names all 30.
    await submitPage(job, 1, typed(second, "Second"));
    const after = await kit.jobs.get(job.id);
    const map = after !== undefined && "note" in after ? after.note.speakerMap : [];
    expect(map).toHaveLength(30);
    expect(map.filter((e) => !/^(First|Second) /.test(e.name))).toEqual([]);
  });

  it("leaves the view alone when it changed since the click (a stale hash loses)", async () => {
    const job = await kit.seed(ourJob(naming({ speakers: thirty })));
    await clickPrevious(job, 1, typed(pageIds(job, 1), "Second"), "1700000000.stale");
    expect(views.update).toHaveBeenCalledOnce();
    await expect(views.update.mock.results[0]?.value).rejects.toThrow(/hash_conflict/);
    expect(kit.logged("info")).toContain("previous page not shown");
  });

  it("does nothing on the first page, or for a job no longer waiting for names", async () => {
    const job = await kit.seed(ourJob(naming({ speakers: thirty })));
    await clickPrevious(job, 0, typed(pageIds(job, 0), "First"));
    const gone = ourJob(naming({ speakers: thirty }));
    await clickPrevious(gone, 1, typed(pageIds(gone, 1), "Second"));
    expect(views.update).not.toHaveBeenCalled();
  });

  it("logs a view Slack no longer has (the person closed the modal)", async () => {
    const job = await kit.seed(ourJob(naming({ speakers: thirty })));
    views.update.mockRejectedValueOnce(platformError("not_found"));
    await clickPrevious(job, 1, typed(pageIds(job, 1), "Second"));
    expect(kit.logged("info")).toContain("previous page not shown");
  });
});
