import { type Logger as SlackLogger, LogLevel as SlackLogLevel } from "@slack/logger";
import { type DestinationStream, type Logger, pino } from "pino";
import type { LogLevel } from "./config.ts";
import { CENSOR, createScrub, withoutPayload } from "./log-scrub.ts";

export type { Logger } from "pino";

const SECRET_FIELDS =
  "token botToken appToken refreshToken signingSecret clientSecret stateSecret tokenKey apiKey";

/** Paths pino blanks out; the scrub of each line (`log-scrub.ts`) catches the rest. */
const REDACT_PATHS = [
  ...SECRET_FIELDS.split(" ").flatMap((field) => [field, `*.${field}`]),
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
  // Pretty only at a terminal with pino-pretty (a development dependency).
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

/** Errors only, for a client whose warnings would repeat the caller's line; unless debug is on. */
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

/** Bolt's and the SDKs' `Logger` on pino, so every line goes through the same redaction. */
export function toSlackLogger(logger: Logger): SlackLogger {
  let current = logger.child({});
  const write =
    (level: "debug" | "info" | "warn" | "error") =>
    (...msg: unknown[]) => {
      // Bolt logs at debug several times per request: build nothing that pino would drop.
      if (!current.isLevelEnabled(level)) return;
      const [first, ...rest] = msg;
      if (first instanceof Error) return current[level]({ err: first }, rest.map(String).join(" "));
      const text = msg.map((part) => (typeof part === "string" ? part : safeJson(part))).join(" ");
      current[level](withoutPayload(text));
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
