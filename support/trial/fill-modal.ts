import { z } from "zod";
import { speakerBlock } from "../../src/slack/ids.ts";
import type { SlackDelivery } from "../e2e/slack-delivery.ts";
import { viewSubmissionPayload } from "../fake-slack/slack-payloads.ts";
import {
  checkboxes,
  conversationsSelect,
  fileInput,
  multiUsersSelect,
  radioButtons,
  type StateValues,
  staticSelect,
  textInput,
  usersSelect,
} from "../helpers/view-state.ts";
import type { Asker } from "./asker.ts";
import { viewText } from "./block-text.ts";
import type { Say } from "./slack-watch.ts";

/** A modal as the bot last sent it: its id and payload. */
export interface OpenModal {
  viewId: string;
  view: Record<string, unknown>;
}

export interface FillModal {
  deliver: SlackDelivery;
  asker: Asker;
  say: Say;
  /** Who submits: Alice. */
  user: string;
  /** The workspace's people, for an answer like "@bob": their ids by name and real name. */
  people: readonly { id: string; name: string; real_name: string }[];
  /** Names `--auto` types, speaker by speaker. */
  autoNames: readonly string[];
}

type Input = { blockId: string; actionId: string; element: Record<string, unknown> };

/**
 * Fills a speaker modal (Name speakers, Regenerate) as a person would: for each speaker, a
 * typed name, a member ("@bob") or nothing (Enter), everything else left as the bot filled
 * it; submits it the way the stand-in's mode delivers, and follows the bot's answer (errors
 * under fields: asked again; the next page: filled in turn). Resolves true once the bot
 * took it; false when the modal has no speaker to name.
 */
export async function fillSpeakerModal(o: FillModal, modal: OpenModal): Promise<boolean> {
  let view = modal.view;
  for (let round = 0; round < 50; round += 1) {
    const inputs = inputsOf(view);
    const answers = await askSpeakers(o, view, inputs);
    if (answers === undefined) return false;
    const reply = await submit(o, { viewId: modal.viewId, view }, stateOf(inputs, answers));
    if (reply.response_action === "errors") {
      o.say("[the bot answered: errors under the fields]");
      for (const [block, error] of Object.entries(reply.errors ?? {}))
        o.say(`  ${block}: ${error}`);
      if (o.asker.auto) throw new Error("the bot refused the names --auto typed");
    } else if (
      reply.view !== undefined &&
      ["update", "push"].includes(reply.response_action ?? "")
    ) {
      view = reply.view;
      o.say("[the bot answered with the modal's next page]");
      for (const line of viewText(view)) o.say(`  ${line}`);
    } else {
      o.say("[Alice submitted the modal; the bot closed it]");
      return true;
    }
  }
  throw new Error("the modal never closed");
}

/** Each speaker's answer as input states by block id; undefined when no speaker is asked about. */
async function askSpeakers(o: FillModal, view: Record<string, unknown>, inputs: Input[]) {
  const speakers = inputs.filter((i) => speakerBlock.parse(i.blockId)?.field === "name");
  if (speakers.length === 0) return undefined;
  const answers: Record<string, Record<string, unknown>> = {};
  for (const [index, input] of speakers.entries()) {
    const speakerId = speakerBlock.parse(input.blockId)?.speakerId ?? "";
    const question = `${speakerLabelIn(view, speakerId)}: a name, @alice or @bob, or Enter to skip: `;
    const answer = await o.asker.ask(question, o.autoNames[index] ?? "");
    Object.assign(answers, answerState(answer, speakerId, o.people));
  }
  return answers;
}

/** What a `view_submission` may be answered with (docs.slack.dev/surfaces/modals). */
const replySchema = z.object({
  response_action: z.string().optional(),
  errors: z.record(z.string(), z.string()).optional(),
  view: z.record(z.string(), z.unknown()).optional(),
});

/** Alice submits the view with `values`; resolves with the bot's answer in the ack. */
async function submit(o: FillModal, modal: OpenModal, values: StateValues) {
  const { view } = modal;
  const payload = viewSubmissionPayload({
    callbackId: String(view.callback_id ?? ""),
    privateMetadata: String(view.private_metadata ?? ""),
    values,
    user: o.user,
    viewId: modal.viewId,
    blocks: Array.isArray(view.blocks) ? view.blocks : [],
  });
  const answered = await o.deliver.interaction(payload);
  if (!answered.acked) throw new Error("the bot did not answer the modal's submission in time");
  const reply = replySchema.safeParse(answered.payload ?? {});
  if (!reply.success)
    throw new Error("the bot answered the submission with something Slack refuses");
  return reply.data;
}

/** "*Speaker 1* · 52% of talk time" → "Speaker 1 (52% of talk time)". */
function speakerLabelIn(view: Record<string, unknown>, speakerId: string): string {
  const blocks = (Array.isArray(view.blocks) ? view.blocks : []) as Record<string, unknown>[];
  const at = blocks.findIndex((b) => b.block_id === speakerBlock.user(speakerId));
  const summary = blocks[at - 1] as { text?: { text?: string } } | undefined;
  const line = summary?.text?.text?.split("\n")[0]?.replaceAll("*", "") ?? speakerId;
  return line.replace(" · ", " (").concat(line.includes(" · ") ? ")" : "");
}

/** A typed answer as the speaker's inputs hold it: a member picked, a name typed, or nothing. */
function answerState(
  answer: string,
  speakerId: string,
  people: FillModal["people"],
): Record<string, Record<string, unknown>> {
  if (answer === "") return {};
  if (answer.startsWith("@")) {
    const wanted = answer.slice(1).trim().toLowerCase();
    const person = people.find(
      (p) => p.name.toLowerCase() === wanted || p.real_name.toLowerCase() === wanted,
    );
    if (person !== undefined) return { [speakerBlock.user(speakerId)]: usersSelect(person.id) };
  }
  return { [speakerBlock.name(speakerId)]: textInput(answer) };
}

/** Every input block of the view with its one element. */
function inputsOf(view: Record<string, unknown>): Input[] {
  const blocks = (Array.isArray(view.blocks) ? view.blocks : []) as Record<string, unknown>[];
  return blocks.flatMap((b) => {
    const element = b.element as Record<string, unknown> | undefined;
    if (b.type !== "input" || typeof b.block_id !== "string" || element === undefined) return [];
    return [{ blockId: b.block_id, actionId: String(element.action_id ?? ""), element }];
  });
}

/**
 * `view.state.values` as Slack sends it: every input, holding what the person chose, else
 * what the bot put in it (`initial_*`), else empty (support/helpers/view-state.ts).
 */
function stateOf(inputs: Input[], answers: Record<string, Record<string, unknown>>): StateValues {
  const values: StateValues = {};
  for (const { blockId, actionId, element } of inputs) {
    values[blockId] = { [actionId]: answers[blockId] ?? initialState(element) };
  }
  return values;
}

function initialState(e: Record<string, unknown>): Record<string, unknown> {
  const option = e.initial_option as { value?: string } | undefined;
  switch (e.type) {
    case "plain_text_input":
      return textInput(typeof e.initial_value === "string" ? e.initial_value : undefined);
    case "users_select":
      return usersSelect(typeof e.initial_user === "string" ? e.initial_user : undefined);
    case "static_select":
      return staticSelect(option?.value);
    case "radio_buttons":
      return radioButtons(option?.value);
    case "checkboxes":
      return checkboxes();
    case "multi_users_select":
      return multiUsersSelect();
    case "conversations_select":
      return conversationsSelect();
    case "file_input":
      return fileInput();
    default:
      return { type: e.type };
  }
}
