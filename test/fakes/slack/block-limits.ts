import { SlackApiError } from "./slack-api-error.ts";

/**
 * Slack's documented Block Kit limits (DESIGN §5). The fake enforces them so an app that
 * would be refused by real Slack is refused here too, instead of passing every test.
 */
export const LIMITS = {
  messageBlocks: 50,
  markdownTotal: 12_000,
  sectionText: 3_000,
  headerText: 150,
  viewBlocks: 100,
  viewTitle: 24,
  privateMetadata: 3_000,
} as const;

/** Throws `invalid_blocks` (as `chat.postMessage` / `chat.update` do) when over a limit. */
export function checkMessageBlocks(blocks: unknown): void {
  if (!Array.isArray(blocks)) throw new SlackApiError("invalid_blocks_format");
  if (blocks.length > LIMITS.messageBlocks) {
    throw new SlackApiError("invalid_blocks", `no more than ${LIMITS.messageBlocks} items allowed`);
  }
  let markdown = 0;
  blocks.forEach((block, index) => {
    const problem = blockProblem(block);
    if (problem !== undefined) throw new SlackApiError("invalid_blocks", `${problem} [/${index}]`);
    if (isRecord(block) && block.type === "markdown" && typeof block.text === "string") {
      markdown += block.text.length;
    }
  });
  if (markdown > LIMITS.markdownTotal) {
    throw new SlackApiError(
      "invalid_blocks",
      `markdown blocks total ${markdown} characters, over ${LIMITS.markdownTotal}`,
    );
  }
}

/** Throws `invalid_arguments` (as `views.*` do) when a view breaks Slack's rules. */
export function checkView(view: unknown): asserts view is Record<string, unknown> {
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
  blocks.forEach((block, index) => {
    const problem = blockProblem(block);
    if (problem !== undefined) fail(`${problem} [json-pointer:/view/blocks/${index}]`);
  });
}

function blockProblem(block: unknown): string | undefined {
  if (!isRecord(block) || typeof block.type !== "string") return "each block needs a type";
  if (block.type === "section") {
    const text = textOf(block.text);
    if (text !== undefined && text.length > LIMITS.sectionText) {
      return `section text must be no more than ${LIMITS.sectionText} characters`;
    }
    if (text === undefined && !Array.isArray(block.fields)) return "section needs text or fields";
  }
  if (block.type === "header") {
    const text = textOf(block.text);
    if (text === undefined || text.length > LIMITS.headerText) return "header text is invalid";
  }
  if (block.type === "markdown" && typeof block.text !== "string") return "markdown needs text";
  return undefined;
}

function textOf(value: unknown): string | undefined {
  return isRecord(value) && typeof value.text === "string" ? value.text : undefined;
}

/** A plain object (not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
