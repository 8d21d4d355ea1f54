import { LogLevel, WebClient } from "@slack/web-api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../support/fake-slack/block-limits.ts";
import { BLOCK_RULES } from "../../support/fake-slack/block-rules.ts";
import { createFakeSlack, type FakeSlack } from "../../support/fake-slack/create-fake-slack.ts";
import { newTriggerId } from "../../support/fake-slack/slack-payloads.ts";

let fake: FakeSlack;
let client: WebClient;
beforeAll(async () => {
  fake = await createFakeSlack();
  client = new WebClient(fake.botToken, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

const x = (n: number) => "x".repeat(n);
const plain = (text: string) => ({ type: "plain_text", text });
const section = (text: string, extra: Record<string, unknown> = {}) => ({
  type: "section",
  text: { type: "mrkdwn", text },
  ...extra,
});
const button = (id: string, text = "Go") => ({
  type: "button",
  action_id: id,
  text: plain(text),
  value: "v",
});
const options = (n: number, text = "o") =>
  Array.from({ length: n }, (_, i) => ({ text: plain(`${text}${i}`), value: `v${i}` }));
const input = (element: Record<string, unknown>, label = "Label") => ({
  type: "input",
  block_id: "in",
  label: plain(label),
  element: { action_id: "a", ...element },
});

/** Each case: a payload one past a documented limit, and the limit's name. */
const TOO_FAR: [string, unknown[]][] = [
  ["section text", [section(x(BLOCK_RULES.sectionText + 1))]],
  ["section fields", [{ type: "section", fields: Array.from({ length: 11 }, () => plain("f")) }]],
  ["header text", [{ type: "header", text: plain(x(BLOCK_RULES.headerText + 1)) }]],
  ["block_id length", [section("a", { block_id: x(BLOCK_RULES.blockId + 1) })]],
  ["duplicate block_id", [section("a", { block_id: "same" }), section("b", { block_id: "same" })]],
  ["action_id length", [{ type: "actions", elements: [button(x(BLOCK_RULES.actionId + 1))] }]],
  ["duplicate action_id", [{ type: "actions", elements: [button("go"), button("go")] }]],
  [
    "actions elements",
    [{ type: "actions", elements: Array.from({ length: 26 }, (_, i) => button(`b${i}`)) }],
  ],
  [
    "context elements",
    [
      {
        type: "context",
        elements: Array.from({ length: 11 }, () => ({ type: "mrkdwn", text: "c" })),
      },
    ],
  ],
  ["button text", [section("a", { accessory: button("go", x(BLOCK_RULES.buttonText + 1)) })]],
  [
    "static_select options",
    [section("a", { accessory: { type: "static_select", action_id: "s", options: options(101) } })],
  ],
  [
    "option text",
    [
      section("a", {
        accessory: { type: "static_select", action_id: "s", options: options(1, x(76)) },
      }),
    ],
  ],
  [
    "overflow options",
    [section("a", { accessory: { type: "overflow", action_id: "o", options: options(6) } })],
  ],
  [
    "placeholder",
    [
      section("a", {
        accessory: { type: "users_select", action_id: "u", placeholder: plain(x(151)) },
      }),
    ],
  ],
  [
    "markdown total",
    [
      { type: "markdown", text: x(LIMITS.markdownTotal / 2) },
      { type: "markdown", text: x(LIMITS.markdownTotal / 2 + 1) },
    ],
  ],
  [
    "blocks per message",
    Array.from({ length: LIMITS.messageBlocks + 1 }, () => ({ type: "divider" })),
  ],
];

describe("Block Kit limits of messages", () => {
  it.each(TOO_FAR)(
    "refuses a message past the %s limit with invalid_blocks",
    async (_name, blocks) => {
      await expect(
        client.chat.postMessage({ channel: "C0BLOCKS1", text: "t", blocks: blocks as never }),
      ).rejects.toMatchObject({
        data: { error: "invalid_blocks" },
      });
      expect(fake.messages("C0BLOCKS1")).toEqual([]);
    },
  );

  it("takes a message at every limit", async () => {
    const blocks = [
      section(x(BLOCK_RULES.sectionText), { block_id: x(BLOCK_RULES.blockId) }),
      { type: "header", text: plain(x(BLOCK_RULES.headerText)) },
      { type: "actions", elements: Array.from({ length: 25 }, (_, i) => button(`b${i}`, x(75))) },
      section("a", { accessory: { type: "overflow", action_id: "o", options: options(5) } }),
      { type: "markdown", text: x(LIMITS.markdownTotal) },
    ];
    await expect(
      client.chat.postMessage({ channel: "C0BLOCKS1", text: "t", blocks: blocks as never }),
    ).resolves.toMatchObject({
      ok: true,
    });
  });

  it("refuses the same in chat.update", async () => {
    const { ts } = await client.chat.postMessage({ channel: "C0BLOCKS1", text: "t" });
    const twice = [section("a", { block_id: "b" }), section("b", { block_id: "b" })];
    await expect(
      client.chat.update({
        channel: "C0BLOCKS1",
        ts: ts as string,
        text: "u",
        blocks: twice as never,
      }),
    ).rejects.toMatchObject({ data: { error: "invalid_blocks" } });
  });
});

describe("Block Kit limits of views", () => {
  const modal = (blocks: unknown[]) => ({
    type: "modal",
    title: plain("Limits"),
    submit: plain("Save"),
    blocks,
  });
  const TOO_FAR_IN_VIEWS: [string, unknown[]][] = [
    ["blocks per view", Array.from({ length: LIMITS.viewBlocks + 1 }, () => ({ type: "divider" }))],
    ["input label", [input({ type: "plain_text_input" }, x(BLOCK_RULES.inputLabel + 1))]],
    ["plain_text_input max_length", [input({ type: "plain_text_input", max_length: 3001 })]],
    ["checkbox options", [input({ type: "checkboxes", options: options(11) })]],
    ["duplicate block_id", [section("a", { block_id: "in" }), input({ type: "plain_text_input" })]],
  ];

  it.each(TOO_FAR_IN_VIEWS)(
    "refuses a view past the %s limit with invalid_arguments",
    async (_name, blocks) => {
      await expect(
        client.views.open({ trigger_id: newTriggerId(), view: modal(blocks) as never }),
      ).rejects.toMatchObject({
        data: { error: "invalid_arguments" },
      });
      await expect(
        client.views.publish({ user_id: "U0HOME001", view: { type: "home", blocks } as never }),
      ).rejects.toMatchObject({
        data: { error: "invalid_arguments" },
      });
    },
  );

  it("takes 100 blocks in a view", async () => {
    const blocks = Array.from({ length: LIMITS.viewBlocks }, () => ({ type: "divider" }));
    await expect(
      client.views.open({ trigger_id: newTriggerId(), view: modal(blocks) as never }),
    ).resolves.toMatchObject({
      ok: true,
    });
  });
});
