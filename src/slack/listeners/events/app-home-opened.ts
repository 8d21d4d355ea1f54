import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import { requestTenant } from "../../installs/request-tenant.ts";
import { localeOf } from "../../messages/catalog.ts";
import { buildAppHome, type HomeItem, MAX_HOME_JOBS } from "../../views/app-home.ts";
import type { ListenerDeps } from "../deps.ts";

export function appHomeOpened(deps: ListenerDeps) {
  return async ({ event }: SlackEventMiddlewareArgs<"app_home_opened"> & AllMiddlewareArgs) => {
    if (event.tab !== "home") return;
    const teamId = requestTenant();
    const [jobs, user, notice] = await Promise.all([
      deps.jobs.listByUser(teamId, event.user),
      deps.directory.user(event.user),
      // A courtesy: App Home shows without it when it cannot be read.
      deps.storeResetNotice?.(teamId, event.user).catch(() => undefined),
    ]);
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
