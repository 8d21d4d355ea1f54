import { findBlockProblem, isRecord, textOf } from "./block-rules.ts";
import { SlackApiError } from "./slack-api-error.ts";

export { isRecord } from "./block-rules.ts";

/**
 * Slack's documented limits on whole payloads. The fake enforces them so an app that would
 * be refused by real Slack is refused here too, instead of passing every test.
 * - blocks: "You can include up to 50 blocks in each message, and 100 blocks in modals or Home
 *   tabs" (https://docs.slack.dev/reference/block-kit/blocks);
 * - markdown: "The cumulative limit for all markdown blocks in a single payload is 12,000
 *   characters" (https://docs.slack.dev/reference/block-kit/blocks/markdown-block);
 * - modal title, submit and close: "max length of 24 characters"; private_metadata "max
 *   length of 3000 characters"; callback_id and external_id "max length of 255 characters"
 *   (https://docs.slack.dev/reference/views/modal-views).
 */
export const LIMITS = {
  messageBlocks: 50,
  markdownTotal: 12_000,
  viewBlocks: 100,
  viewTitle: 24,
  privateMetadata: 3_000,
  viewIds: 255,
} as const;

/**
 * Throws `invalid_blocks` ("Blocks submitted with this message are not valid",
 * chat.postMessage / chat.update errors) when `blocks` break a rule. `strict: false` keeps
 * only the counts and the markdown total, for a test that needs the fake of old.
 */
export function checkMessageBlocks(blocks: unknown, strict = true): void {
  if (!Array.isArray(blocks)) throw new SlackApiError("invalid_blocks_format");
  if (blocks.length > LIMITS.messageBlocks) {
    throw new SlackApiError("invalid_blocks", `no more than ${LIMITS.messageBlocks} items allowed`);
  }
  const problem = strict ? findBlockProblem(blocks, "/blocks") : undefined;
  if (problem !== undefined) {
    throw new SlackApiError(
      "invalid_blocks",
      `${problem.message} [json-pointer:${problem.pointer}]`,
    );
  }
  const markdown = blocks
    .filter((b) => isRecord(b) && b.type === "markdown" && typeof b.text === "string")
    .reduce((sum: number, b) => sum + String((b as { text: string }).text).length, 0);
  if (markdown > LIMITS.markdownTotal) {
    throw new SlackApiError(
      "invalid_blocks",
      `markdown blocks total ${markdown} characters, over ${LIMITS.markdownTotal}`,
    );
  }
}

/** Throws `invalid_arguments` (as `views.*` do) when a view breaks Slack's rules. */
export function checkView(view: unknown, strict = true): asserts view is Record<string, unknown> {
  if (!isRecord(view)) throw new SlackApiError("invalid_arguments", "view must be an object");
  const fail = (detail: string): never => {
    throw new SlackApiError("invalid_arguments", detail);
  };
  if (view.type !== "modal" && view.type !== "home") fail("view.type must be modal or home");
  if (!Array.isArray(view.blocks)) fail("view.blocks is required");
  const blocks = view.blocks as unknown[];
  if (blocks.length > LIMITS.viewBlocks) fail(`no more than ${LIMITS.viewBlocks} blocks allowed`);
  if (view.type === "modal") {
    const title = textOf(view.title);
    if (title === undefined) fail("view.title is required for modals");
    else if (title.length > LIMITS.viewTitle) {
      fail(`must be less than ${LIMITS.viewTitle + 1} characters [json-pointer:/view/title/text]`);
    }
    for (const key of ["submit", "close"] as const) {
      const text = textOf(view[key]);
      if (text !== undefined && text.length > LIMITS.viewTitle) fail(`view.${key} is too long`);
    }
  }
  const meta = view.private_metadata;
  if (typeof meta === "string" && meta.length > LIMITS.privateMetadata) {
    fail(`private_metadata must be no more than ${LIMITS.privateMetadata} characters`);
  }
  if (!strict) return;
  for (const key of ["callback_id", "external_id"] as const) {
    const id = view[key];
    if (typeof id === "string" && id.length > LIMITS.viewIds) {
      fail(`must be no more than ${LIMITS.viewIds} characters [json-pointer:/view/${key}]`);
    }
  }
  const problem = findBlockProblem(blocks, "/view/blocks");
  if (problem !== undefined) fail(`${problem.message} [json-pointer:${problem.pointer}]`);
}
