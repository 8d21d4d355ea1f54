import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import { requestTenant } from "../../installs/request-tenant.ts";
import { localeOf } from "../../messages/index.ts";
import { buildAppHome, type HomeItem, MAX_HOME_JOBS } from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";

/**
 * App Home: the person's running and recent jobs, each with a link to its thread, under a
 * notice when the bot's store lost some of their jobs lately.
 */
export function appHomeOpened(deps: ListenerDeps) {
  return async ({ event }: SlackEventMiddlewareArgs<"app_home_opened"> & AllMiddlewareArgs) => {
    if (event.tab !== "home") return;
    // The person's jobs of this install only: its tenant's index.
    const teamId = requestTenant();
    const [jobs, user, notice] = await Promise.all([
      deps.jobs.listByUser(teamId, event.user),
      deps.directory.user(event.user),
      // The notice is a courtesy: App Home shows without it when it cannot be read.
      deps.storeResetNotice?.(teamId, event.user).catch(() => undefined),
    ]);
    // Links only for the jobs that fit: the newest.
    const newest = jobs.toSorted((a, b) => b.createdAt - a.createdAt).slice(0, MAX_HOME_JOBS);
    const items: HomeItem[] = await Promise.all(
      newest.map(async (job) => {
        const { channelId, threadTs } = job.origin;
        const permalink = await deps.directory.permalink(channelId, threadTs);
        return permalink === undefined ? { job } : { job, permalink };
      }),
    );
    const locale = localeOf(user.locale);
    const home = buildAppHome(items, { locale, now: deps.now(), total: jobs.length, notice });
    await deps.responder.publishHome(event.user, home);
  };
}
