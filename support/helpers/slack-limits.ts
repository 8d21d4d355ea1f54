import type { AnyBlock, HomeView, ModalView } from "@slack/types";
import { expect } from "vitest";
import { SLACK_LIMITS as L } from "../../src/slack/views/limits.ts";

/**
 * Checks of Slack's limits on what a builder returns. Slack rejects a whole message or
 * modal that breaks one (`invalid_blocks`), so the tests hold every builder to them.
 */

type Json = unknown;

/** Every object in a JSON tree, depth first. */
function* objects(value: Json): Generator<Record<string, unknown>> {
  if (Array.isArray(value)) for (const item of value) yield* objects(item);
  else if (value !== null && typeof value === "object") {
    yield value as Record<string, unknown>;
    for (const child of Object.values(value)) yield* objects(child);
  }
}

function textOf(value: unknown): string {
  return (value as { text?: string } | undefined)?.text ?? "";
}

/** Limits shared by messages, modals and Home: ids, buttons, options, sections. */
export function expectBlockLimits(blocks: AnyBlock[]): void {
  const blockIds = blocks.map((b) => b.block_id).filter((id) => id !== undefined);
  expect(new Set(blockIds).size, "block ids are unique").toBe(blockIds.length);
  for (const id of blockIds) expect(id.length).toBeLessThanOrEqual(L.blockId);
  for (const node of objects(blocks)) {
    if (node.type === "section") {
      expect(textOf(node.text).length).toBeLessThanOrEqual(L.sectionText);
    }
    if (node.type === "context") {
      expect((node.elements as unknown[]).length).toBeLessThanOrEqual(10);
    }
    if (node.type === "header") expect(textOf(node.text).length).toBeLessThanOrEqual(L.headerText);
    if (node.type === "button") {
      expect(textOf(node.text).length).toBeLessThanOrEqual(L.buttonText);
      if (node.value !== undefined) {
        expect(String(node.value).length).toBeLessThanOrEqual(L.actionValue);
      }
    }
    if (Array.isArray(node.options)) {
      expect(node.options.length).toBeLessThanOrEqual(L.staticOptions);
      for (const o of node.options as { text: unknown; value: string }[]) {
        expect(textOf(o.text).length).toBeLessThanOrEqual(L.optionText);
        expect(o.value.length).toBeLessThanOrEqual(L.optionValue);
      }
    }
    if (node.placeholder !== undefined) {
      expect(textOf(node.placeholder).length).toBeLessThanOrEqual(L.placeholder);
    }
    if (node.type === "input") {
      expect(textOf(node.label).length).toBeLessThanOrEqual(L.inputLabel);
    }
    if (node.type === "plain_text_input" && typeof node.initial_value === "string") {
      expect(node.initial_value.length).toBeLessThanOrEqual(
        Number(node.max_length ?? L.plainTextInput),
      );
    }
  }
}

/** A message: ≤ 50 blocks, ≤ 12,000 characters of Markdown, a non-empty fallback. */
export function expectMessageLimits(message: { text: string; blocks: AnyBlock[] }): void {
  expect(message.text.trim()).not.toBe("");
  expect(message.blocks.length).toBeGreaterThan(0);
  expect(message.blocks.length).toBeLessThanOrEqual(L.messageBlocks);
  const markdown = message.blocks
    .filter((b) => b.type === "markdown")
    .reduce((sum, b) => sum + textOf(b).length, 0);
  expect(markdown).toBeLessThanOrEqual(L.messageMarkdownChars);
  expectBlockLimits(message.blocks);
}

/** A modal: title and buttons ≤ 24, ≤ 100 blocks, `private_metadata` ≤ 3,000. */
export function expectModalLimits(view: ModalView): void {
  expect(view.type).toBe("modal");
  expect(view.title.text.length).toBeLessThanOrEqual(L.modalTitle);
  if (view.submit) expect(view.submit.text.length).toBeLessThanOrEqual(L.modalButton);
  if (view.close) expect(view.close.text.length).toBeLessThanOrEqual(L.modalButton);
  expect(view.blocks.length).toBeLessThanOrEqual(L.modalBlocks);
  expect(view.private_metadata?.length ?? 0).toBeLessThanOrEqual(L.privateMetadata);
  expect(view.callback_id?.length ?? 0).toBeLessThanOrEqual(255);
  if (view.blocks.some((b) => b.type === "input")) expect(view.submit).toBeDefined();
  expectBlockLimits(view.blocks);
}

export function expectHomeLimits(view: HomeView): void {
  expect(view.type).toBe("home");
  expect(view.blocks.length).toBeLessThanOrEqual(L.homeBlocks);
  expectBlockLimits(view.blocks);
}

/** No mention or broadcast Slack would act on, except the ones listed as intended. */
export function expectNoLiveMentions(value: unknown, allowed: string[] = []): void {
  let json = JSON.stringify(value);
  for (const mention of allowed) json = json.replaceAll(mention, "");
  expect(json).not.toMatch(/<[!@#]/);
  expect(json).not.toMatch(/@(channel|here|everyone)\b/i);
}
