/**
 * The bot cannot start, for a reason the person starting it must fix (a token Slack
 * refuses, say). Its message is one sentence naming the variable and where its value is
 * found: the process prints it alone on stderr, without a stack trace, and exits non-zero.
 */
export class StartupError extends Error {
  readonly code = "startup_refused";

  constructor(sentence: string) {
    super(sentence);
    this.name = this.constructor.name;
  }
}
