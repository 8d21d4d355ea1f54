import { isRecord } from "./block-rules.ts";
import type { FakeSlackStore } from "./fake-slack-store.ts";

/**
 * Checks the app's answer to a `view_submission`. `response_action: "errors"` takes
 * `errors`, keyed by the `block_id` of the input blocks the messages go under
 * (https://docs.slack.dev/surfaces/modals, "Displaying errors in views"; bolt-js types it
 * `errors: { [blockId: string]: string }`, ViewErrorsResponseAction in src/types/view). Slack documents no answer of its own to a key naming no input
 * block of the view: the person simply sees no message under any field, so the fake records
 * the answer as a violation instead of refusing it. Returns what is wrong, if anything.
 */
export function viewAnswerProblem(
  payload: Record<string, unknown>,
  answer: unknown,
  store: FakeSlackStore,
): string | undefined {
  if (payload.type !== "view_submission" || !isRecord(answer)) return undefined;
  if (answer.response_action !== "errors") return undefined;
  if (!isRecord(answer.errors)) return "response_action errors without an errors object";
  const blocks = submittedBlocks(payload, store);
  // A view the fake never opened and whose payload carries no blocks cannot be judged.
  if (blocks === undefined) return undefined;
  const inputs = new Set(
    blocks
      .filter((b) => isRecord(b) && b.type === "input" && typeof b.block_id === "string")
      .map((b) => (b as { block_id: string }).block_id),
  );
  const strays = Object.keys(answer.errors).filter((key) => !inputs.has(key));
  if (strays.length === 0) return undefined;
  return `errors for ${strays.join(", ")}: no input block of the view has that block_id`;
}

/**
 * The blocks of the view submitted: as the fake last stored it (by view id, else the newest
 * view the app opened with the same callback_id and private_metadata), else as the payload
 * carries them when it carries any.
 */
function submittedBlocks(
  payload: Record<string, unknown>,
  store: FakeSlackStore,
): unknown[] | undefined {
  const view = isRecord(payload.view) ? payload.view : {};
  const byId = typeof view.id === "string" ? store.views.get(view.id)?.view : undefined;
  const opened =
    byId ??
    store.viewRecords.findLast(
      (r) =>
        r.view.callback_id === view.callback_id &&
        (r.view.private_metadata ?? "") === (view.private_metadata ?? ""),
    )?.view;
  const blocks = opened?.blocks ?? view.blocks;
  return Array.isArray(blocks) && blocks.length > 0 ? blocks : undefined;
}
