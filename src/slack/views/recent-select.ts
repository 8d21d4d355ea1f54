import type { KnownBlock, StaticSelect } from "@slack/types";
import { INPUTS } from "../ids.ts";
import { type Locale, t } from "../messages/catalog.ts";
import { clampText } from "../text/clamp-text.ts";
import { input, option, plain } from "./block-kit.ts";
import { SLACK_LIMITS } from "./limits.ts";

export interface RecentRecording {
  fileId: string;
  name: string;
}

/** Their ids ride in `private_metadata` (3,000 characters): far fewer than a select's 100. */
const MAX_RECENT = 20;

export function offeredRecordings(recordings: RecentRecording[]): RecentRecording[] {
  return recordings
    .filter((r) => r.fileId !== "" && r.fileId.length <= SLACK_LIMITS.optionValue)
    .slice(0, MAX_RECENT);
}

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
  return input(INPUTS.recentRecording.block, t(locale, label), element);
}
