/**
 * A Web API refusal: the fake answers it as Slack does, HTTP 200 with `{ok: false, error}`
 * (plus `response_metadata.messages` when there is a detail worth showing, and the top-level
 * fields some errors carry, such as `needed`/`provided` of `missing_scope`).
 */
export class SlackApiError extends Error {
  readonly error: string;
  readonly messages: string[];
  /** Top-level fields beside `ok` and `error` (see {@link SlackApiError.with}). */
  fields: Record<string, unknown> = {};

  constructor(error: string, ...messages: string[]) {
    super(error);
    this.name = "SlackApiError";
    this.error = error;
    this.messages = messages;
  }

  /** Adds top-level fields to the answer, e.g. `{needed, provided}`; returns itself. */
  with(fields: Record<string, unknown>): this {
    this.fields = { ...this.fields, ...fields };
    return this;
  }

  /** The response body Slack would send. */
  toBody(): Record<string, unknown> {
    return {
      ok: false,
      error: this.error,
      ...this.fields,
      ...(this.messages.length > 0
        ? { response_metadata: { messages: this.messages.map((m) => `[ERROR] ${m}`) } }
        : {}),
    };
  }
}
