import { describe, expect, it } from "vitest";
import { ACTIONS, MODAL_BLOCKS, speakerBlock, VIEWS } from "../../src/slack/ids.ts";
import {
  ALICE,
  buttonOn,
  CHANNEL,
  eventually,
  shareRecording,
  useStack,
} from "../../support/e2e/stack.ts";
import type { FakeViewRecord } from "../../support/fake-slack/fake-slack-types.ts";
import {
  blockActionPayload,
  viewSubmissionPayload,
} from "../../support/fake-slack/slack-payloads.ts";
import { newTriggerId, nowTs } from "../../support/fake-slack/slack-request.ts";

/**
 * A meeting of 30 speakers, named in full through the real app: the speaker modal (at most
 * 100 blocks a view) shows them over two pages, keeps what was typed when the person goes
 * back a page, and the note request carries all 30 names.
 */
const stack = useStack();

type Values = Record<string, Record<string, Record<string, unknown>>>;
type View = Record<string, unknown> & { blocks?: { block_id?: string; element?: unknown }[] };

/** The speakers a view asks to name, by their name inputs' block ids. */
function speakersIn(view: View | undefined): string[] {
  return (view?.blocks ?? []).flatMap((block) => {
    const parsed = speakerBlock.parse(block.block_id ?? "");
    return parsed?.field === "name" ? [parsed.speakerId] : [];
  });
}

/** A typed name for each speaker given. */
function typed(speakerIds: string[], name = (id: string) => `Person ${id}`): Values {
  return Object.fromEntries(
    speakerIds.map((id) => [
      speakerBlock.name(id),
      { name: { type: "plain_text_input", value: name(id) } },
    ]),
  );
}

/** The value a view shows in a speaker's name input. */
function shownName(view: View | undefined, speakerId: string): unknown {
  const block = view?.blocks?.find((b) => b.block_id === speakerBlock.name(speakerId));
  return (block?.element as { initial_value?: unknown } | undefined)?.initial_value;
}

/** Submits a page of the modal as Slack delivers it; resolves to the app's answer. */
async function submitPage(viewId: string, view: View, values: Values) {
  const payload = viewSubmissionPayload({
    callbackId: VIEWS.speakerNames,
    privateMetadata: String(view.private_metadata),
    values,
    user: ALICE,
    viewId,
    teamId: stack.fake.teamId,
  });
  const answer = await stack.deliver.interaction(payload);
  expect(answer.acked).toBe(true);
  return answer.payload as { response_action?: string; view?: View } | undefined;
}

/** "Previous page" clicked in the modal, as Slack sends a click inside a view. */
async function clickPrevious(viewId: string, view: View, values: Values, jobId: string) {
  const teamId = stack.fake.teamId;
  const payload = {
    type: "block_actions",
    user: { id: ALICE, username: "alice", name: "alice", team_id: teamId },
    api_app_id: "A0FAKEAPP",
    token: "fake-verification-token",
    container: { type: "view", view_id: viewId },
    trigger_id: newTriggerId(),
    team: { id: teamId, domain: "fake-workspace" },
    enterprise: null,
    is_enterprise_install: false,
    view: { ...view, id: viewId, team_id: teamId, state: { values }, root_view_id: viewId },
    actions: [
      {
        type: "button",
        action_id: ACTIONS.speakersPrevious,
        block_id: MODAL_BLOCKS.speakerPages,
        value: jobId,
        action_ts: nowTs(),
      },
    ],
  };
  expect(await stack.deliver.interaction(payload)).toMatchObject({ acked: true });
}

describe("a meeting of 30 speakers", () => {
  it("names every speaker over two pages, and the note request carries every name", async () => {
    stack.emulator.knobs.speakerCount = 30;
    const { ts } = await shareRecording(stack, "town-hall.m4a");
    const at = await buttonOn(stack, ts, ACTIONS.nameSpeakers);
    const trigger = newTriggerId();
    const click = blockActionPayload({
      actionId: ACTIONS.nameSpeakers,
      value: at.jobId,
      user: ALICE,
      channel: CHANNEL,
      messageTs: at.statusTs,
      teamId: stack.fake.teamId,
      triggerId: trigger,
    });
    expect(await stack.deliver.interaction(click)).toMatchObject({ acked: true });
    const opened = await eventually(
      () => stack.fake.views.find((v) => v.op === "open" && v.trigger_id === trigger),
      (v) => v !== undefined,
    );
    const viewId = (opened as FakeViewRecord).view_id;
    const firstPage =
      (await eventually(
        () => stack.fake.view(viewId) as View | undefined,
        (view) => speakersIn(view).length > 0,
      )) ?? {};
    const first = speakersIn(firstPage);
    expect(first).toHaveLength(19);
    expect((firstPage.blocks ?? []).length).toBeLessThanOrEqual(100);

    const next = await submitPage(viewId, firstPage, typed(first));
    expect(next?.response_action).toBe("update");
    const secondPage = next?.view;
    const second = speakersIn(secondPage);
    expect(second).toHaveLength(11);
    expect(new Set([...first, ...second]).size).toBe(30);

    // Back a page, with something typed on the second: the first shows what was entered.
    const later = (id: string) => `Later ${id}`;
    await clickPrevious(viewId, secondPage ?? {}, typed(second, later), at.jobId);
    const backOnFirst =
      (await eventually(
        () => stack.fake.view(viewId) as View | undefined,
        (view) => shownName(view, first[0] ?? "") !== undefined,
      )) ?? {};
    expect(first.map((id) => shownName(backOnFirst, id))).toEqual(
      first.map((id) => `Person ${id}`),
    );
    // On again: the second page comes back as it was left.
    const again = await submitPage(viewId, backOnFirst, typed(first));
    expect(second.map((id) => shownName(again?.view, id))).toEqual(second.map(later));

    const done = await submitPage(viewId, again?.view ?? {}, typed(second));
    expect(done).toBeUndefined();
    const notes = await eventually(
      () => stack.emulator.stats.noteSubmissions,
      (n) => n.length === 1,
      { timeoutMs: 15_000 },
    );
    const map = (notes[0]?.speakerMap ?? []) as { speaker_id: string; name: string }[];
    expect(map).toHaveLength(30);
    expect(map.filter((entry) => entry.name !== `Person ${entry.speaker_id}`)).toEqual([]);
    expect(stack.fake.violations).toEqual([]);
  });
});
