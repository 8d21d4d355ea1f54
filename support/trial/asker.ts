import { createInterface, type Interface } from "node:readline";
import type { Say } from "./slack-watch.ts";

/** Questions to the person in the terminal, or, with `--auto`, the trial's own answers. */
export interface Asker {
  readonly auto: boolean;
  /**
   * Asks and resolves with the line typed (trimmed; "" for Enter). With `--auto`, prints the
   * question with `auto` as if typed and resolves with it. Once stdin has ended, every
   * question gets "" (the default), so a piped script ends cleanly.
   */
  ask(question: string, auto: string): Promise<string>;
  /** The next line typed, for the stand-in's command prompt; undefined once stdin ended. */
  next(prompt: string): Promise<string | undefined>;
  close(): void;
}

/** The trial's own answers, printed as if typed. */
export function autoAsker(say: Say): Asker {
  return {
    auto: true,
    ask(question, answer) {
      say(`${question}${answer}   (--auto)`);
      return Promise.resolve(answer);
    },
    next: () => Promise.resolve(undefined),
    close() {},
  };
}

/** Questions on stdin/stdout: one line answers one question or one command. */
export function terminalAsker(): Asker {
  const lines: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let ended = false;
  const rl: Interface = createInterface({ input: process.stdin, output: process.stdout });
  rl.on("line", (line) => {
    if (waiting === undefined) lines.push(line);
    else {
      const resolve = waiting;
      waiting = undefined;
      resolve(line);
    }
  });
  rl.on("close", () => {
    ended = true;
    waiting?.(undefined);
    waiting = undefined;
  });
  // A terminal echoes what is typed; piped answers are echoed here, so the output reads alike.
  const echo = (line: string | undefined) => {
    if (line !== undefined && process.stdin.isTTY !== true) process.stdout.write(`${line}\n`);
    return line;
  };
  const read = (prompt: string): Promise<string | undefined> => {
    process.stdout.write(prompt);
    const queued = lines.shift();
    if (queued !== undefined) return Promise.resolve(echo(queued));
    if (ended) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      waiting = (line) => resolve(echo(line));
    });
  };
  return {
    auto: false,
    ask: async (question) => {
      const line = await read(question);
      if (line === undefined) process.stdout.write("\n");
      return (line ?? "").trim();
    },
    next: async (prompt) => (await read(prompt))?.trim(),
    close: () => rl.close(),
  };
}
