import { z } from "zod";

/**
 * One input's state in `view.state.values`, as Slack sends it in a `view_submission`.
 * Only the fields our inputs produce are named; the rest pass through. Fields are nullish:
 * Slack sends `null` for an input left empty (a select with nothing chosen, say).
 */
const actionStateSchema = z.looseObject({
  type: z.string(),
  value: z.string().nullish(),
  selected_user: z.string().nullish(),
  selected_users: z.array(z.string()).nullish(),
  selected_conversation: z.string().nullish(),
  selected_option: z.looseObject({ value: z.string() }).nullish(),
  selected_options: z.array(z.looseObject({ value: z.string() })).nullish(),
  files: z.array(z.looseObject({ id: z.string() })).nullish(),
});
export type ActionState = z.infer<typeof actionStateSchema>;

/** `view.state.values`: block id → action id → state. A boundary: validated, not trusted. */
export const stateValuesSchema = z.record(z.string(), z.record(z.string(), actionStateSchema));
export type StateValues = z.infer<typeof stateValuesSchema>;

/** The validated values, or undefined when the payload does not have Slack's shape. */
export function readStateValues(values: unknown): StateValues | undefined {
  const parsed = stateValuesSchema.safeParse(values);
  return parsed.success ? parsed.data : undefined;
}

/** The state of one input, found by its block and action ids. */
export function stateOf(values: StateValues, blockId: string, actionId: string) {
  return values[blockId]?.[actionId];
}

/** A text input's value, trimmed; undefined when empty or absent. */
export function textOf(values: StateValues, blockId: string, actionId: string) {
  const value = stateOf(values, blockId, actionId)?.value?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/** A select's chosen option value; undefined when nothing is chosen. */
export function optionOf(values: StateValues, blockId: string, actionId: string) {
  return stateOf(values, blockId, actionId)?.selected_option?.value ?? undefined;
}

/** The id of the first file of a `file_input`; undefined when none was added. */
export function fileOf(values: StateValues, blockId: string, actionId: string) {
  return stateOf(values, blockId, actionId)?.files?.[0]?.id ?? undefined;
}

/** The result of parsing a submission: the values, or errors keyed by block id. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: Record<string, string> };
