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
export type ActionState = z.infer<typeof actionStateSchema>;

/** block id → action id → state; a boundary, so validated. */
export const stateValuesSchema = z.record(z.string(), z.record(z.string(), actionStateSchema));
export type StateValues = z.infer<typeof stateValuesSchema>;

export function readStateValues(values: unknown): StateValues | undefined {
  const parsed = stateValuesSchema.safeParse(values);
  return parsed.success ? parsed.data : undefined;
}

export function stateOf(values: StateValues, blockId: string, actionId: string) {
  return values[blockId]?.[actionId];
}

export function textOf(values: StateValues, blockId: string, actionId: string) {
  const value = stateOf(values, blockId, actionId)?.value?.trim();
  return value === undefined || value === "" ? undefined : value;
}

export function optionOf(values: StateValues, blockId: string, actionId: string) {
  return stateOf(values, blockId, actionId)?.selected_option?.value ?? undefined;
}

export function fileOf(values: StateValues, blockId: string, actionId: string) {
  return stateOf(values, blockId, actionId)?.files?.[0]?.id ?? undefined;
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
