import type { Knobs } from "./knobs.ts";
import type { Signer } from "./signing.ts";
import type { EmulatorStats } from "./stats.ts";
import type { TaskStore } from "./tasks.ts";

/** The API's path prefix (docs/note-service.md); the emulator's `baseUrl` ends with it. */
export const BASE_PATH = "/api/v1/third-party/note-taker";

/** Everything the request handlers of both origins share. */
export interface EmulatorContext {
  apiKey: string;
  /** `http://host:port` of the result origin, for absolute redirect targets. */
  resultOrigin: string;
  knobs: Knobs;
  stats: EmulatorStats;
  tasks: TaskStore;
  signer: Signer;
  /**
   * When on (`pollLog` option, `EMULATOR_POLL_LOG=1`): the times (epoch ms) each task id was
   * polled, the latest {@link POLL_LOG_PER_TASK} per task, for `GET /_emulator/polls`.
   */
  pollLog?: Map<string, number[]>;
}

/** How many poll times the poll log keeps per task: enough for minutes of polling. */
export const POLL_LOG_PER_TASK = 64;
