/**
 * Records what escapes every handler in this process: unhandled promise rejections and
 * uncaught exceptions. In production either one ends the process (Node 24 turns an
 * unhandled rejection into a crash); here the listeners keep the test process alive so the
 * suite can say exactly which input caused it.
 */
export interface ProcessWatch {
  /** Everything seen since the watch started (or since the last `take`). */
  readonly rejections: unknown[];
  readonly exceptions: unknown[];
  /** Returns and forgets what was seen: a test that expects a crash claims its own. */
  take(): { rejections: unknown[]; exceptions: unknown[] };
  /** A one-line summary per problem, for assertion messages. */
  describe(): string[];
  dispose(): void;
}

export function watchProcess(): ProcessWatch {
  const rejections: unknown[] = [];
  const exceptions: unknown[] = [];
  const onRejection = (reason: unknown) => {
    rejections.push(reason);
  };
  const onException = (error: unknown) => {
    exceptions.push(error);
  };
  process.on("unhandledRejection", onRejection);
  process.on("uncaughtException", onException);
  const line = (kind: string, error: unknown) => {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    return `${kind}: ${text.split("\n").slice(0, 4).join(" | ")}`;
  };
  return {
    rejections,
    exceptions,
    take() {
      const taken = { rejections: [...rejections], exceptions: [...exceptions] };
      rejections.length = 0;
      exceptions.length = 0;
      return taken;
    },
    describe: () => [
      ...rejections.map((r) => line("unhandled rejection", r)),
      ...exceptions.map((e) => line("uncaught exception", e)),
    ],
    dispose() {
      process.off("unhandledRejection", onRejection);
      process.off("uncaughtException", onException);
    },
  };
}
