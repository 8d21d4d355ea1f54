import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appHomeOpened } from "../../../../src/slack/listeners/events/app-home-opened.ts";
import {
  buildAppHome,
  type HomeItem,
  MAX_HOME_JOBS,
} from "../../../../src/slack/views/app-home.ts";
import { eventCallback } from "../../../../support/fake-slack/slack-payloads.ts";
import { platformError } from "../../../../support/helpers/fake-web-client.ts";
import {
  ALICE,
  asRequest,
  BOB,
  buildEventArgs,
  buildListenerDeps,
  fixtureIds,
  LAN,
  type ListenerKit,
  OTHER_CHANNEL,
  startJob,
  TEAM,
} from "../../../../support/helpers/listener-args.ts";
import { loadObject } from "../../../fixtures/slack-payloads/index.ts";

let kit: ListenerKit;
beforeEach(async () => {
  kit = await buildListenerDeps();
});
afterEach(() => kit.close());

/** Slack's published `app_home_opened` event, for `user`, in its Events API envelope. */
function opened(user = ALICE, tab = "home") {
  const event = { ...loadObject("event-app_home_opened", fixtureIds({ user })), tab };
  return eventCallback(event, { teamId: TEAM, eventId: "Ev0HOME0001" });
}

async function deliver(body: Record<string, unknown>) {
  await asRequest(() => appHomeOpened(kit.deps)(buildEventArgs<"app_home_opened">(kit, body)));
}

/** The link Slack's chat.getPermalink gives for a job's thread in the fake workspace. */
const permalinkOf = (channel: string, ts: string) =>
  `https://fake-workspace.slack.com/archives/${channel}/p${ts.replace(".", "")}`;

describe("appHomeOpened", () => {
  it("publishes the person's own jobs, each linked to its thread", async () => {
    const first = await startJob(kit, { filename: "monday.m4a" });
    const second = await startJob(kit, { channelId: OTHER_CHANNEL, filename: "tuesday.mp3" });
    await startJob(kit, { userId: BOB, filename: "bobs.m4a" });
    await deliver(opened());
    const items: HomeItem[] = [second, first].map((job) => ({
      job,
      permalink: permalinkOf(job.origin.channelId, job.origin.threadTs),
    }));
    const view = buildAppHome(items, { locale: "en", now: kit.clock.now });
    expect(kit.slack.views.publish.mock.calls).toEqual([[{ user_id: ALICE, view }]]);
    const shown = JSON.stringify(view);
    expect(shown).toContain("monday.m4a");
    expect(shown).toContain(permalinkOf(OTHER_CHANNEL, second.origin.threadTs));
    expect(shown).not.toContain("bobs.m4a");
  });

  it("still lists a job whose thread link Slack would not give", async () => {
    const job = await startJob(kit);
    kit.slack.chat.getPermalink.mockRejectedValueOnce(platformError("message_not_found"));
    await deliver(opened());
    const view = buildAppHome([{ job }], { locale: "en", now: kit.clock.now });
    expect(kit.slack.views.publish.mock.calls).toEqual([[{ user_id: ALICE, view }]]);
  });

  it("publishes the empty Home in the person's language", async () => {
    await deliver(opened(LAN));
    const view = buildAppHome([], { locale: "vi", now: kit.clock.now });
    expect(kit.slack.views.publish.mock.calls).toEqual([[{ user_id: LAN, view }]]);
  });

  it("does nothing when the Messages tab is opened", async () => {
    await startJob(kit);
    await deliver(opened(ALICE, "messages"));
    expect(kit.slack.views.publish).not.toHaveBeenCalled();
    expect(kit.slack.chat.getPermalink).not.toHaveBeenCalled();
  });

  // Regression: the listener once kept only the first MAX_HOME_JOBS (48) jobs before
  // buildAppHome counted them, so "Showing the latest 48 of 50." could never appear.
  it("says how many jobs are not shown when the person has more than fit, showing the newest", async () => {
    const jobs = [];
    for (let i = 0; i < 50; i++) {
      jobs.push(await startJob(kit, { filename: `meeting-${i}.m4a` }));
      kit.clock.now += 1_000;
    }
    await deliver(opened());
    const shown = JSON.stringify(kit.slack.views.publish.mock.calls[0]?.[0]);
    expect(shown).toContain(`Showing the latest ${MAX_HOME_JOBS} of 50.`);
    expect(shown).toContain("meeting-49.m4a");
    expect(shown).not.toContain("meeting-0.m4a");
    expect(kit.slack.chat.getPermalink).toHaveBeenCalledTimes(MAX_HOME_JOBS);
  });
});
