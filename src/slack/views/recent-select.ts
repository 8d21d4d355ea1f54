import type { KnownBlock, StaticSelect } from "@slack/types";
import { INPUTS } from "../ids.ts";
import { type Locale, t } from "../messages/index.ts";
import { clampText } from "../text/index.ts";
import { input, option, plain } from "./block-kit.ts";
import { SLACK_LIMITS } from "./limits.ts";

/** A recording already in the channel, offered instead of a new upload. */
export interface RecentRecording {
  fileId: string;
  name: string;
}

/**
 * Recent recordings offered at most: their ids ride in `private_metadata` (3,000
 * characters), so far fewer than a select's 100 options.
 */
const MAX_RECENT = 20;

/** The recent recordings a select can offer (and `private_metadata` can remember). */
export function offeredRecordings(recordings: RecentRecording[]): RecentRecording[] {
  return recordings
    .filter((r) => r.fileId !== "" && r.fileId.length <= SLACK_LIMITS.optionValue)
    .slice(0, MAX_RECENT);
}

/** The recordings offered; `chosen` (a message's recording) is selected already. */
export function recentSelect(
  usable: RecentRecording[],
  locale: Locale,
  chosen: string | undefined,
): KnownBlock | undefined {
  if (usable.length === 0) return undefined;
  const options = usable.map((r) => option(clampText(r.name, SLACK_LIMITS.optionText), r.fileId));
  const initial = options.find((o) => o.value === chosen);
  const element: StaticSelect = {
    type: "static_select",
    action_id: INPUTS.recentRecording.action,
    placeholder: plain(t(locale, "new_notes.recent_placeholder"), SLACK_LIMITS.placeholder),
    options,
    ...(initial === undefined ? {} : { initial_option: initial }),
  };
  const label =
    chosen === undefined ? "new_notes.recent_label" : "new_notes.message_recording_label";
  return input(INPUTS.recentRecording.block, t(locale, label), element, { optional: true });
}
