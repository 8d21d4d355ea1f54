import { z } from "zod";

/** One input's state in `view.state.values`; Slack sends `null` for an input left empty. */
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

/** block id → action id → state; a boundary, so validated. */
const stateValuesSchema = z.record(z.string(), z.record(z.string(), actionStateSchema));
export type StateValues = z.infer<typeof stateValuesSchema>;

/** An input's block and the one action it holds. */
export interface InputIds {
  block: string;
  action: string;
}

export function readStateValues(values: unknown): StateValues | undefined {
  const parsed = stateValuesSchema.safeParse(values);
  return parsed.success ? parsed.data : undefined;
}

export function stateOf(values: StateValues, ids: InputIds) {
  return values[ids.block]?.[ids.action];
}

export function textOf(values: StateValues, ids: InputIds) {
  const value = stateOf(values, ids)?.value?.trim();
  return value === undefined || value === "" ? undefined : value;
}

export function optionOf(values: StateValues, ids: InputIds) {
  return stateOf(values, ids)?.selected_option?.value ?? undefined;
}

export function fileOf(values: StateValues, ids: InputIds) {
  return stateOf(values, ids)?.files?.[0]?.id ?? undefined;
}

/** A one-box checkbox input (its value the action id); undefined when the form has no such input. */
export function tickedOf(values: StateValues, ids: InputIds): boolean | undefined {
  const state = stateOf(values, ids);
  if (state === undefined) return undefined;
  return (state.selected_options ?? []).some((o) => o.value === ids.action);
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: Record<string, string> };

/** From `view.blocks` as Slack sends it back, else `view.state.values`, which lists every input. */
export function inputBlocksOf(view: { blocks?: unknown; state?: { values?: unknown } }): string[] {
  const blocks: unknown[] = Array.isArray(view.blocks) ? view.blocks : [];
  const ids = blocks.flatMap((block) => {
    const { type, block_id: id } = (block ?? {}) as { type?: unknown; block_id?: unknown };
    return type === "input" && typeof id === "string" ? [id] : [];
  });
  const values = view.state?.values;
  if (ids.length > 0 || typeof values !== "object" || values === null) return ids;
  return Object.keys(values);
}
