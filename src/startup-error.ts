/** The bot cannot start for a reason its operator must fix: one sentence, shown without a stack. */
export class StartupError extends Error {
  readonly code = "startup_refused";

  constructor(sentence: string) {
    super(sentence);
    this.name = this.constructor.name;
  }
}
