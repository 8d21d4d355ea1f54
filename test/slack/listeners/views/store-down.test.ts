import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { INPUTS, SPEAKER_ACTIONS, speakerBlock, VIEWS } from "../../../../src/slack/ids.ts";
import { replayPendingStart } from "../../../../src/slack/listeners/replay-pending.ts";
import { sayingStoreDown } from "../../../../src/slack/listeners/views/modal-submission.ts";
import { newNotesSubmitted } from "../../../../src/slack/listeners/views/new-notes.ts";
import { speakerNamesSubmitted } from "../../../../src/slack/listeners/views/speaker-names.ts";
import { t } from "../../../../src/slack/messages/catalog.ts";
import { viewSubmissionPayload } from "../../../../support/fake-slack/slack-payloads.ts";
import { StoreFault } from "../../../../support/helpers/failing-store.ts";
import {
  ALICE,
  asRequest,
  buildListenerDeps,
  buildViewArgs,
  CHANNEL,
  ephemerals,
  fakeAck,
  fixtureIds,
  type ListenerKit,
  ourJob,
  TEAM,
} from "../../../../support/helpers/listener-args.ts";
import {
  conversationsSelect,
  fileInput,
  stateValues,
  staticSelect,
  textInput,
} from "../../../../support/helpers/view-state.ts";
import { loadObject } from "../../../fixtures/slack-payloads/index.ts";
import { naming } from "../../views/fixtures.ts";

/**
 * Modal submissions while the store fails: Slack sends a submission once, so the person
 * hears it in the form (before the ack) or alone (after it); a `/meeting-notes` job whose
 * thread was already opened is kept and started there once the store is back.
 */
let kit: ListenerKit;
let down: StoreFault["mode"] = "none";
const fault = new StoreFault(() => down);
beforeEach(async () => {
  down = "none";
  kit = await buildListenerDeps({ wrapStore: (store) => fault.wrap(store) });
});
afterEach(() => kit.close());

const RECORDING = "F0UPLOAD01";

describe("a submission the store cannot save", () => {
  it("keeps the naming form on screen with one sentence under its first input", async () => {
    const job = await kit.seed(ourJob(naming()));
    const values = stateValues([
      [speakerBlock.name("speaker_1"), SPEAKER_ACTIONS.name, textInput("Lan")],
      [speakerBlock.name("speaker_2"), SPEAKER_ACTIONS.name, textInput("Minh")],
    ]);
    const body = viewSubmissionPayload({
      callbackId: VIEWS.speakerNames,
      privateMetadata: job.id,
      values,
      user: ALICE,
      teamId: TEAM,
    });
    // Readable, not writable: the job is found, the submission cannot be saved.
    down = "writes";
    const ack = fakeAck();
    const listener = sayingStoreDown(kit.deps, speakerNamesSubmitted(kit.deps, "names"));
    await asRequest(() => listener(buildViewArgs(kit, body, { ack })));
    expect(ack.mock.calls).toEqual([
      [
        {
          response_action: "errors",
          errors: { [speakerBlock.name("speaker_1")]: t("en", "store.unavailable") },
        },
      ],
    ]);
    down = "none";
    expect((await kit.jobs.get(job.id))?.stage).toBe("naming");
  });

  it("keeps a /meeting-notes job whose thread is open, says so, and starts it there once", async () => {
    const event = loadObject("event-message-file_share-mp3", fixtureIds({ file: RECORDING })).event;
    const [file] = (event as { files: Record<string, unknown>[] }).files;
    kit.workspace.files.set(RECORDING, { ...(file ?? {}) });
    // The store fails once the thread's parent message is posted.
    const post = kit.slack.chat.postMessage.getMockImplementation();
    if (post === undefined) throw new Error("the fake posts nothing");
    kit.slack.chat.postMessage.mockImplementationOnce(async (args) => {
      const posted = await post(args);
      down = "all";
      return posted;
    });
    const body = viewSubmissionPayload({
      callbackId: VIEWS.newNotes,
      privateMetadata: JSON.stringify({ channelId: CHANNEL, recent: [] }),
      values: stateValues([
        [INPUTS.recording.block, INPUTS.recording.action, fileInput({ id: RECORDING, name: "x" })],
        [INPUTS.language.block, INPUTS.language.action, staticSelect("auto")],
        [INPUTS.destination.block, INPUTS.destination.action, conversationsSelect(CHANNEL)],
      ]),
      user: ALICE,
      teamId: TEAM,
    });
    const ack = fakeAck();
    await asRequest(() =>
      sayingStoreDown(kit.deps, newNotesSubmitted(kit.deps))(buildViewArgs(kit, body, { ack })),
    );
    expect(ack.mock.calls).toEqual([[]]);
    expect(ephemerals(kit).map((reply) => reply.text)).toEqual([
      t("en", "new_notes.pending", { channel: `<#${CHANNEL}>` }),
    ]);
    const [kept] = kit.kept;
    const threadTs = (await kit.slack.chat.postMessage.mock.results[0]?.value)?.ts;
    expect(kept).toMatchObject({ kind: "thread", origin: { channelId: CHANNEL, threadTs } });

    down = "none";
    const replay = replayPendingStart(kit.deps);
    if (kept === undefined) throw new Error("nothing kept");
    expect(await replay(kept)).toEqual({ done: true });
    expect(await replay(kept)).toEqual({ done: true });
    const jobs = await kit.jobs.listByChannel(TEAM, CHANNEL);
    expect(jobs.map((job) => job.origin.threadTs)).toEqual([threadTs]);
    expect(kit.slack.chat.postMessage).toHaveBeenCalledOnce();
  });
});
