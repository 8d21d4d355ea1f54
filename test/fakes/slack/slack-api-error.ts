/**
 * A Web API refusal: the fake answers it as Slack does, HTTP 200 with `{ok: false, error}`
 * (plus `response_metadata.messages` when there is a detail worth showing).
 */
export class SlackApiError extends Error {
  readonly error: string;
  readonly messages: string[];

  constructor(error: string, ...messages: string[]) {
    super(error);
    this.name = "SlackApiError";
    this.error = error;
    this.messages = messages;
  }

  /** The response body Slack would send. */
  toBody(): Record<string, unknown> {
    return {
      ok: false,
      error: this.error,
      ...(this.messages.length > 0
        ? { response_metadata: { messages: this.messages.map((m) => `[ERROR] ${m}`) } }
        : {}),
    };
  }
}
