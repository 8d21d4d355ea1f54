import { type Locale, t } from "./translate.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** How long ago `then` was, from `now`, as a short phrase ("5 minutes ago", "vừa xong"). */
export function timeAgo(locale: Locale, then: number, now: number): string {
  const elapsed = Math.max(0, now - then);
  if (elapsed < MINUTE) return t(locale, "time.just_now");
  if (elapsed < HOUR) {
    const count = Math.floor(elapsed / MINUTE);
    return count === 1
      ? t(locale, "time.minutes_ago.one")
      : t(locale, "time.minutes_ago.other", { count });
  }
  if (elapsed < DAY) {
    const count = Math.floor(elapsed / HOUR);
    return count === 1
      ? t(locale, "time.hours_ago.one")
      : t(locale, "time.hours_ago.other", { count });
  }
  const count = Math.floor(elapsed / DAY);
  return count === 1 ? t(locale, "time.days_ago.one") : t(locale, "time.days_ago.other", { count });
}
