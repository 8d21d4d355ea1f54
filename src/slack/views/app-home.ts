import type { HomeView, KnownBlock } from "@slack/types";
import type { Job } from "../../jobs/index.ts";
import { ACTIONS } from "../ids.ts";
import { type Locale, t, timeAgo } from "../messages/catalog.ts";
import { clampText } from "../text/clamp-text.ts";
import { button, context, divider, header, section } from "./block-kit.ts";
import { asMrkdwn, stageShort } from "./job-phrases.ts";
import { SLACK_LIMITS } from "./limits.ts";

export interface HomeItem {
  job: Job;
  permalink?: string;
}

export interface HomeNotice {
  at: number;
  files: string[];
}

const HEADER_BLOCKS = 3;
const BLOCKS_PER_JOB = 2;
/** Jobs that fit the Home tab's 100 blocks, keeping one for the "showing N of M" line. */
export const MAX_HOME_JOBS = Math.floor(
  (SLACK_LIMITS.homeBlocks - HEADER_BLOCKS - 1) / BLOCKS_PER_JOB,
);
const MAX_URL_CHARS = 3_000;

/** The person's jobs, newest first; a store-loss `notice` comes first, costing one job's room. */
export function buildAppHome(
  items: HomeItem[],
  options: { locale: Locale; now: number; total?: number; notice?: HomeNotice | undefined },
): HomeView {
  const { locale, now, notice } = options;
  const blocks: KnownBlock[] = [header(t(locale, "home.header"))];
  if (notice !== undefined) blocks.push(section(noticeText(notice, locale, now)));
  blocks.push(context(asMrkdwn(t(locale, "home.intro"))), divider());
  if (items.length === 0) {
    blocks.push(section(asMrkdwn(t(locale, "home.empty"))));
    return { type: "home", blocks };
  }
  const sorted = [...items].sort((a, b) => b.job.createdAt - a.job.createdAt);
  const shown = sorted.slice(0, notice === undefined ? MAX_HOME_JOBS : MAX_HOME_JOBS - 1);
  for (const item of shown) blocks.push(...jobBlocks(item, locale, now));
  // The person may have more jobs than the caller looked up (`total`).
  const count = Math.max(options.total ?? 0, sorted.length);
  if (count > shown.length) {
    blocks.push(context(t(locale, "home.more", { shown: shown.length, count })));
  }
  return { type: "home", blocks };
}

function noticeText(notice: HomeNotice, locale: Locale, now: number): string {
  const files = notice.files.map((name) => `*${asMrkdwn(clampText(name, 100))}*`).join(", ");
  return t(locale, "home.store_reset", { when: timeAgo(locale, notice.at, now), files });
}

function jobBlocks({ job, permalink }: HomeItem, locale: Locale, now: number): KnownBlock[] {
  const title = `*${asMrkdwn(clampText(job.source.filename, 200))}*`;
  const text = `${title}\n${stageShort(job, locale, asMrkdwn)}`;
  const when = t(locale, "home.started", { when: timeAgo(locale, job.createdAt, now) });
  return [section(text, threadButton(job.id, permalink, locale)), context(when)];
}

function threadButton(jobId: string, permalink: string | undefined, locale: Locale) {
  if (permalink === undefined || !/^https:\/\//.test(permalink)) return undefined;
  if (permalink.length > MAX_URL_CHARS) return undefined;
  return { ...button(ACTIONS.openThread, t(locale, "button.open_thread"), jobId), url: permalink };
}
