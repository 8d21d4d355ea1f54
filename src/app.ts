import type { DestinationStream } from "pino";
import type { Dispatcher } from "undici";
import type { Config } from "./config.ts";
import { createHealthServer } from "./http/health-server.ts";
import { createLogger, type Logger } from "./logger.ts";
import { NoteTakerClient } from "./notetaker/index.ts";

/** What tests and the process may swap in. */
export interface AppDeps {
  logDestination?: DestinationStream;
  /** undici dispatcher for the Note Service (a MockAgent in tests). */
  dispatcher?: Dispatcher;
}

export interface MeetingNotesApp {
  readonly logger: Logger;
  readonly noteTaker: NoteTakerClient;
  /** Starts serving; resolves with the HTTP port actually bound. */
  start(): Promise<number>;
  /** Stops taking work and releases every resource. */
  stop(): Promise<void>;
}

/** The composition root: builds every part from the configuration, no logic of its own. */
export function createApp(config: Config, deps: AppDeps = {}): MeetingNotesApp {
  const logger = createLogger({
    level: config.logLevel,
    secrets: [
      config.slack.botToken,
      config.slack.appToken,
      config.slack.signingSecret,
      config.noteTaker.apiKey,
    ],
    ...(deps.logDestination === undefined ? {} : { destination: deps.logDestination }),
  });
  const noteTaker = new NoteTakerClient({
    baseUrl: config.noteTaker.baseUrl,
    apiKey: config.noteTaker.apiKey,
    logger,
    ...(deps.dispatcher === undefined ? {} : { dispatcher: deps.dispatcher }),
  });
  let stopping = false;
  const health = createHealthServer(() => stopping);

  return {
    logger,
    noteTaker,
    async start() {
      const port = await health.listen(config.port);
      logger.info(
        { port, mode: config.slack.appToken === undefined ? "http" : "socket" },
        "meeting-notes started",
      );
      return port;
    },
    async stop() {
      stopping = true;
      await health.close();
      logger.info("meeting-notes stopped");
    },
  };
}
