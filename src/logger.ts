import { type Logger as SlackLogger, LogLevel as SlackLogLevel } from "@slack/logger";
import { type DestinationStream, type Logger, pino } from "pino";
import type { LogLevel } from "./config.ts";
import { CENSOR, createScrub, withoutPayload } from "./log-scrub.ts";

export type { Logger } from "pino";

/**
 * Paths pino blanks out wherever they appear in a logged object. The second line of defence
 * is the scrub of every serialised line (`log-scrub.ts`): the known secret values, and
 * whatever has the shape of a capability Slack hands out (tokens, hook URLs, trigger ids,
 * OAuth codes and states), so one that ends up inside an error message or a URL is caught
 * too — with installs by OAuth, tokens are not known when the logger is made.
 */
const REDACT_PATHS = [
  "token",
  "botToken",
  "appToken",
  "refreshToken",
  "signingSecret",
  "clientSecret",
  "stateSecret",
  "tokenKey",
  "apiKey",
  "*.token",
  "*.botToken",
  "*.appToken",
  "*.refreshToken",
  "*.signingSecret",
  "*.clientSecret",
  "*.stateSecret",
  "*.tokenKey",
  "*.apiKey",
  "config.slack.botToken",
  "config.slack.appToken",
  "config.slack.signingSecret",
  "config.slack.oauth",
  "config.noteTaker.apiKey",
  'headers["x-api-key"]',
  "headers.authorization",
  'req.headers["x-api-key"]',
  "req.headers.authorization",
  'req.headers["x-slack-signature"]',
];

export interface LoggerOptions {
  level: LogLevel;
  /** Secret values (tokens, keys) that must never appear in a log line. */
  secrets?: readonly (string | undefined)[];
  /** Where lines go; defaults to stdout (pretty-printed only when stdout is a TTY). */
  destination?: DestinationStream;
}

/** Creates the one root logger of the process. Components take `logger.child({ name })`. */
export function createLogger(options: LoggerOptions): Logger {
  const scrub = createScrub(options.secrets ?? []);
  // Pretty lines for a person at a terminal, when pino-pretty is installed (a development
  // dependency: a production install logs JSON lines, as it should).
  const pretty =
    options.destination === undefined && process.stdout.isTTY === true && hasPinoPretty();
  return pino(
    {
      level: options.level,
      redact: { paths: REDACT_PATHS, censor: CENSOR },
      hooks: { streamWrite: scrub },
      ...(pretty ? { transport: { target: "pino-pretty", options: { colorize: true } } } : {}),
    },
    options.destination,
  );
}

function hasPinoPretty(): boolean {
  try {
    import.meta.resolve("pino-pretty");
    return true;
  } catch {
    return false;
  }
}

/**
 * The same logger showing errors only (for a client whose warnings on every try would
 * repeat a line the caller logs once), unless a person asked for debug lines or for none.
 */
export function quiet(logger: Logger): Logger {
  if (logger.isLevelEnabled("debug") || !logger.isLevelEnabled("error")) return logger;
  return logger.child({}, { level: "error" });
}

const TO_SLACK_LEVEL: Record<string, SlackLogLevel> = {
  fatal: SlackLogLevel.ERROR,
  error: SlackLogLevel.ERROR,
  warn: SlackLogLevel.WARN,
  info: SlackLogLevel.INFO,
  debug: SlackLogLevel.DEBUG,
  trace: SlackLogLevel.DEBUG,
  silent: SlackLogLevel.ERROR,
};

/**
 * Adapts a pino logger to the `Logger` interface Bolt and the Slack SDK expect, so every
 * line of the process goes through the same redaction. The SDKs' debug lines that carry a
 * whole payload (a raw Socket Mode envelope, a Web API call's body) are written without it.
 */
export function toSlackLogger(logger: Logger): SlackLogger {
  let current = logger.child({});
  const write =
    (level: "debug" | "info" | "warn" | "error") =>
    (...msg: unknown[]) => {
      // Bolt logs at debug several times per request: build nothing that pino would drop.
      if (!current.isLevelEnabled(level)) return;
      const [first, ...rest] = msg;
      if (first instanceof Error) current[level]({ err: first }, rest.map(String).join(" "));
      else
        current[level](
          withoutPayload(
            msg.map((part) => (typeof part === "string" ? part : safeJson(part))).join(" "),
          ),
        );
    };
  return {
    debug: write("debug"),
    info: write("info"),
    warn: write("warn"),
    error: write("error"),
    // LOG_LEVEL is the one setting: Bolt calls setLevel(INFO) on its own when it is given
    // a logger, which would hide its debug lines from a person who asked for them.
    setLevel: () => undefined,
    getLevel: () => TO_SLACK_LEVEL[current.level] ?? SlackLogLevel.INFO,
    setName: (name) => {
      current = logger.child({ name });
    },
  };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
