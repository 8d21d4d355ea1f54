import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.ts";

const valid = {
  SLACK_BOT_TOKEN: "xoxb-123",
  SLACK_SIGNING_SECRET: "signing-secret",
  NOTE_TAKER_BASE_URL: "https://notes.example/api/v1/third-party/note-taker/",
  NOTE_TAKER_API_KEY: "key",
};

function problemsOf(env: Record<string, string | undefined>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  it("applies the documented defaults", () => {
    expect(loadConfig(valid)).toEqual({
      slack: {
        botToken: "xoxb-123",
        appToken: undefined,
        signingSecret: "signing-secret",
        apiUrl: "https://slack.com/api/",
        oauth: undefined,
        rateShare: 1,
        distribution: "internal",
      },
      port: 3000,
      metricsPort: undefined,
      noteTaker: {
        baseUrl: "https://notes.example/api/v1/third-party/note-taker",
        apiKey: "key",
        resultLinkHosts: [],
      },
      storeUrl: "sqlite://data/meeting-notes.sqlite",
      poll: { initialMs: 2000, maxMs: 15_000 },
      retentionDays: 30,
      fairUse: { perUser: 3, perChannel: 5, total: 20, regenerateCooldownMs: 60_000 },
      media: {
        ffmpegPath: undefined,
        ffprobePath: undefined,
        concurrency: 1,
        timeoutMs: 60 * 60_000,
        maxHours: 8,
      },
      logLevel: "info",
    });
  });

  it("reads how the app is distributed, internal unless told, and refuses another word", () => {
    for (const distribution of ["internal", "marketplace", "distributed"] as const) {
      const config = loadConfig({ ...valid, SLACK_APP_DISTRIBUTION: ` ${distribution} ` });
      expect(config.slack.distribution).toBe(distribution);
    }
    expect(loadConfig({ ...valid, SLACK_APP_DISTRIBUTION: "" }).slack.distribution).toBe(
      "internal",
    );
    const problems = problemsOf({ ...valid, SLACK_APP_DISTRIBUTION: "public" });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^SLACK_APP_DISTRIBUTION must be one of internal, marketplace, distributed/,
    );
  });

  it("reads the fair-use limits and refuses ones that make no sense", () => {
    const config = loadConfig({
      ...valid,
      MAX_ACTIVE_JOBS_PER_USER: "1",
      MAX_ACTIVE_JOBS_PER_CHANNEL: "2",
      MAX_ACTIVE_JOBS: "50",
      REGENERATE_COOLDOWN_SECONDS: "0",
    });
    expect(config.fairUse).toEqual({
      perUser: 1,
      perChannel: 2,
      total: 50,
      regenerateCooldownMs: 0,
    });
    expect(
      problemsOf({ ...valid, MAX_ACTIVE_JOBS_PER_USER: "0", MAX_ACTIVE_JOBS: "lots" }).map(
        (p) => p.split(" ")[0],
      ),
    ).toEqual(["MAX_ACTIVE_JOBS_PER_USER", "MAX_ACTIVE_JOBS"]);
  });

  it("reads the share of Slack's rate limits, a fraction for several replicas", () => {
    expect(loadConfig({ ...valid, SLACK_RATE_SHARE: "0.5" }).slack.rateShare).toBe(0.5);
    for (const bad of ["0", "-1", "101", "half"]) {
      expect(problemsOf({ ...valid, SLACK_RATE_SHARE: bad }).map((p) => p.split(" ")[0])).toEqual([
        "SLACK_RATE_SHARE",
      ]);
    }
  });

  it("reads the longest recording FFmpeg prepares, and refuses none or more than a day", () => {
    expect(loadConfig({ ...valid, MAX_RECORDING_HOURS: "3" }).media.maxHours).toBe(3);
    for (const bad of ["0", "25", "1.5", "all"]) {
      expect(
        problemsOf({ ...valid, MAX_RECORDING_HOURS: bad }).map((p) => p.split(" ")[0]),
      ).toEqual(["MAX_RECORDING_HOURS"]);
    }
  });

  it("lists every missing variable at once", () => {
    const problems = problemsOf({});
    expect(problems.map((p) => p.split(" ")[0])).toEqual([
      "SLACK_BOT_TOKEN",
      "NOTE_TAKER_BASE_URL",
      "NOTE_TAKER_API_KEY",
      "SLACK_SIGNING_SECRET",
    ]);
    expect(problems.every((p) => p.includes("missing"))).toBe(true);
  });

  it("treats empty values as unset", () => {
    expect(problemsOf({ ...valid, NOTE_TAKER_API_KEY: "  " })).toEqual([
      expect.stringMatching(/^NOTE_TAKER_API_KEY is/),
    ]);
    expect(loadConfig({ ...valid, PORT: "", LOG_LEVEL: "" }).port).toBe(3000);
  });

  it("explains bad values", () => {
    const problems = problemsOf({
      ...valid,
      PORT: "eighty",
      NOTE_TAKER_BASE_URL: "notes.example",
      STORE_URL: "mysql://db",
      LOG_LEVEL: "loud",
      SLACK_APP_TOKEN: "xoxb-wrong",
      POLL_INITIAL_MS: "20000",
      SLACK_API_URL: "not a url",
    });
    expect(problems).toHaveLength(7);
    expect(problems.join("\n")).toMatch(/PORT must be a whole number/);
    expect(problems.join("\n")).toMatch(/SLACK_APP_TOKEN must be an app-level token/);
    expect(problems.join("\n")).toMatch(/POLL_INITIAL_MS must not be greater than POLL_MAX_MS/);
  });

  it("reads RESULT_LINK_HOSTS as exact host names, lower-cased, and refuses anything else", () => {
    const hosts = loadConfig({ ...valid, RESULT_LINK_HOSTS: " Files.Internal , 10.0.0.7,, [::1]" })
      .noteTaker.resultLinkHosts;
    expect(hosts).toEqual(["files.internal", "10.0.0.7", "[::1]"]);
    const problems = problemsOf({
      ...valid,
      RESULT_LINK_HOSTS: "ok.internal, https://files.internal, store:9000, *.corp, a/b",
    });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^RESULT_LINK_HOSTS must be host names/);
    expect(problems[0]).toContain("https://files.internal, store:9000, *.corp, a/b");
    expect(problems[0]).not.toContain("ok.internal,");
  });

  it("takes METRICS_PORT from 0 to 65535, other than PORT", () => {
    expect(loadConfig({ ...valid, METRICS_PORT: "9464" }).metricsPort).toBe(9464);
    expect(loadConfig({ ...valid, METRICS_PORT: " " }).metricsPort).toBeUndefined();
    // Both 0: each server gets a free port of its own.
    expect(loadConfig({ ...valid, PORT: "0", METRICS_PORT: "0" }).metricsPort).toBe(0);
    for (const bad of ["65536", "-1", "9464.5", "metrics"]) {
      expect(problemsOf({ ...valid, METRICS_PORT: bad })).toEqual([
        expect.stringMatching(/^METRICS_PORT must be a whole number from 0 to 65535/),
      ]);
    }
    expect(problemsOf({ ...valid, METRICS_PORT: "3000" })).toEqual([
      expect.stringMatching(/^METRICS_PORT must differ from PORT/),
    ]);
    expect(problemsOf({ ...valid, PORT: "8080", METRICS_PORT: " 8080 " })).toHaveLength(1);
  });

  it("chooses Socket Mode without a signing secret when an app token is set", () => {
    const { SLACK_SIGNING_SECRET: _, ...rest } = valid;
    const config = loadConfig({ ...rest, SLACK_APP_TOKEN: "xapp-1", STORE_URL: "memory://" });
    expect(config.slack.appToken).toBe("xapp-1");
    expect(config.storeUrl).toBe("memory://");
  });
});

describe("loadConfig and .env.example", () => {
  /** .env.example as a person copies it, parsed the way Node's --env-file reads it. */
  const example = parseEnv(readFileSync(new URL("../.env.example", import.meta.url), "utf8"));

  it("refuses .env.example's placeholders, naming each variable in the one message", () => {
    const problems = problemsOf(example);
    expect(problems.map((p) => p.split(" ")[0]).sort()).toEqual([
      "NOTE_TAKER_API_KEY",
      "NOTE_TAKER_BASE_URL",
      "SLACK_BOT_TOKEN",
      // Empty in .env.example: HTTP mode then needs it (or an app token for Socket Mode).
      "SLACK_SIGNING_SECRET",
    ]);
    for (const name of ["NOTE_TAKER_API_KEY", "NOTE_TAKER_BASE_URL", "SLACK_BOT_TOKEN"]) {
      expect(problems).toContainEqual(
        expect.stringMatching(new RegExp(`^${name} is still the placeholder from .env.example: `)),
      );
    }
  });

  it("refuses placeholders of the optional secrets too, and takes real values", () => {
    expect(
      problemsOf({ ...valid, SLACK_APP_TOKEN: "xapp-your-app-token" }).map((p) => p.split(" ")[0]),
    ).toEqual(["SLACK_APP_TOKEN"]);
    expect(
      problemsOf({ ...valid, SLACK_SIGNING_SECRET: "your_signing_secret" }).map(
        (p) => p.split(" ")[0],
      ),
    ).toEqual(["SLACK_SIGNING_SECRET"]);
    const filled = loadConfig({
      ...example,
      SLACK_BOT_TOKEN: "xoxb-1-2-abc",
      SLACK_SIGNING_SECRET: "8f14e45fceea167a5a36dedd4bea2543",
      NOTE_TAKER_BASE_URL: "http://127.0.0.1:4010/api/v1/third-party/note-taker",
      NOTE_TAKER_API_KEY: "dev-key",
    });
    expect(filled.noteTaker.baseUrl).toBe("http://127.0.0.1:4010/api/v1/third-party/note-taker");
  });
});

describe("loadConfig under the Slack CLI (slack run)", () => {
  const { SLACK_BOT_TOKEN: _bot, SLACK_SIGNING_SECRET: _secret, ...noteService } = valid;

  it("takes the tokens the CLI hands over as SLACK_CLI_XOXB / SLACK_CLI_XAPP: Socket Mode", () => {
    const config = loadConfig({
      ...noteService,
      SLACK_CLI_XOXB: "xoxb-cli-bot",
      SLACK_CLI_XAPP: "xapp-1-cli-app",
      // `SLACK_APP_TOKEN=` left empty in a .env for HTTP mode: unset, as everywhere.
      SLACK_APP_TOKEN: "",
    });
    expect(config.slack).toMatchObject({ botToken: "xoxb-cli-bot", appToken: "xapp-1-cli-app" });
  });

  it("keeps SLACK_BOT_TOKEN / SLACK_APP_TOKEN when set, as the CLI does", () => {
    const config = loadConfig({
      ...noteService,
      SLACK_BOT_TOKEN: "xoxb-set",
      SLACK_APP_TOKEN: "xapp-1-set",
      SLACK_CLI_XOXB: "xoxb-cli-bot",
      SLACK_CLI_XAPP: "xapp-1-cli-app",
    });
    expect(config.slack).toMatchObject({ botToken: "xoxb-set", appToken: "xapp-1-set" });
  });

  it("still says SLACK_BOT_TOKEN is missing when neither name is set", () => {
    expect(problemsOf({ ...noteService, SLACK_CLI_XAPP: "xapp-1-cli-app" })).toEqual([
      expect.stringMatching(/^SLACK_BOT_TOKEN is missing/),
    ]);
  });
});

describe("loadConfig with installs by OAuth", () => {
  const { SLACK_BOT_TOKEN: _bot, ...noBotToken } = valid;
  // 32 bytes that look random, the same every run (`openssl rand -base64 32` in real life).
  const keyBytes = createHash("sha256").update("the config test's token key").digest();
  const key = keyBytes.toString("base64");
  const stateSecret = "state-secret-of-the-config-test-0123";
  const oauth = {
    ...noBotToken,
    SLACK_CLIENT_ID: "1234.5678",
    SLACK_CLIENT_SECRET: "client-secret-abc",
    SLACK_STATE_SECRET: stateSecret,
    SLACK_TOKEN_KEY: key,
    SLACK_REDIRECT_URL: "https://notes.example/slack/oauth_redirect",
  };

  it("reads the OAuth part, with no bot token, in HTTP mode and in Socket Mode", () => {
    const config = loadConfig(oauth);
    expect(config.slack.botToken).toBeUndefined();
    expect(config.slack.oauth).toEqual({
      clientId: "1234.5678",
      clientSecret: "client-secret-abc",
      stateSecret,
      tokenKey: keyBytes,
      redirectUrl: "https://notes.example/slack/oauth_redirect",
    });
    const socket = loadConfig({ ...oauth, SLACK_SIGNING_SECRET: "", SLACK_APP_TOKEN: "xapp-1-a" });
    expect(socket.slack).toMatchObject({ appToken: "xapp-1-a", botToken: undefined });
    expect(socket.slack.oauth?.clientId).toBe("1234.5678");
  });

  it("names each missing OAuth variable, one line each, and how to make the key", () => {
    const problems = problemsOf({ ...noBotToken, SLACK_CLIENT_ID: "1234.5678" });
    expect(problems.map((p) => p.split(" ")[0])).toEqual([
      "SLACK_CLIENT_SECRET",
      "SLACK_STATE_SECRET",
      "SLACK_TOKEN_KEY",
      "SLACK_REDIRECT_URL",
    ]);
    expect(problems.every((p) => p.includes("is missing: installs by OAuth"))).toBe(true);
    expect(problems.find((p) => p.startsWith("SLACK_TOKEN_KEY"))).toContain(
      "openssl rand -base64 32",
    );
  });

  it("refuses a bot token beside the client id: one line naming the conflict", () => {
    expect(problemsOf({ ...oauth, SLACK_BOT_TOKEN: "xoxb-1" })).toEqual([
      expect.stringMatching(/^SLACK_BOT_TOKEN and SLACK_CLIENT_ID are both set: choose one mode/),
    ]);
  });

  it("refuses a key that is not 32 bytes of base64, and a redirect URL elsewhere", () => {
    for (const bad of [Buffer.alloc(16).toString("base64"), "not base64!!", `${key}AA`]) {
      expect(problemsOf({ ...oauth, SLACK_TOKEN_KEY: bad })).toEqual([
        expect.stringMatching(/^SLACK_TOKEN_KEY must be 32 random bytes in base64/),
      ]);
    }
    expect(problemsOf({ ...oauth, SLACK_REDIRECT_URL: "https://notes.example/callback" })).toEqual([
      expect.stringMatching(/^SLACK_REDIRECT_URL must end with \/slack\/oauth_redirect/),
    ]);
    expect(problemsOf({ ...oauth, SLACK_REDIRECT_URL: "notes.example" })).toEqual([
      expect.stringMatching(/^SLACK_REDIRECT_URL must be the public http\(s\) URL/),
    ]);
  });

  /** One sentence naming the variable and how to make a good value. */
  const oneSentence = (name: string) =>
    new RegExp(`^${name} [^.]*: make a good one with \`openssl rand -base64 32\`\\.$`);

  it("refuses a token key of one repeated byte, or not random, in one sentence saying how to make one", () => {
    const weak = {
      "all zero": Buffer.alloc(32, 0),
      "one byte repeated": Buffer.alloc(32, 7),
      "two bytes taking turns": Buffer.from(
        Array.from({ length: 32 }, (_, i) => (i % 2 ? 1 : 250)),
      ),
      "a few bytes": Buffer.from(
        Array.from({ length: 32 }, (_, i) => [3, 141, 59, 26, 5][i % 5] ?? 0),
      ),
      text: Buffer.from("correct horse battery staple 123"),
      "hex digits": Buffer.from("0123456789abcdef0123456789abcdef"),
      "counting up": Buffer.from(Array.from({ length: 32 }, (_, i) => i)),
      "counting down by 3": Buffer.from(Array.from({ length: 32 }, (_, i) => 200 - 3 * i)),
    };
    for (const [what, bytes] of Object.entries(weak)) {
      expect(problemsOf({ ...oauth, SLACK_TOKEN_KEY: bytes.toString("base64") }), what).toEqual([
        expect.stringMatching(oneSentence("SLACK_TOKEN_KEY")),
      ]);
    }
    // Random keys pass: two hundred of them, none refused.
    for (let i = 0; i < 200; i++) {
      const random = createHash("sha256").update(`key ${i}`).digest();
      expect(
        loadConfig({ ...oauth, SLACK_TOKEN_KEY: random.toString("base64") }).slack.oauth,
      ).toMatchObject({ tokenKey: random });
    }
  });

  it("refuses a state secret under 32 characters, or one character repeated, in one sentence saying how to make one", () => {
    for (const weak of ["x", "state-secret-abc", "a".repeat(31), "z".repeat(40)]) {
      expect(problemsOf({ ...oauth, SLACK_STATE_SECRET: weak }), weak).toEqual([
        expect.stringMatching(oneSentence("SLACK_STATE_SECRET")),
      ]);
    }
    // What the command makes (44 characters) and 32 characters of a longer secret pass.
    for (const good of ["Yk3ZQ7rWb1n0pC4o9QvTq1m2xS8eL5uR0aF6hJ3dK2E=", stateSecret.slice(0, 32)]) {
      expect(loadConfig({ ...oauth, SLACK_STATE_SECRET: good }).slack.oauth?.stateSecret).toBe(
        good,
      );
    }
  });

  it("says so of an OAuth variable set without the client id, and keeps the single mode", () => {
    expect(problemsOf({ ...valid, SLACK_CLIENT_SECRET: "client-secret-abc" })).toEqual([
      expect.stringMatching(/^SLACK_CLIENT_SECRET is set but SLACK_CLIENT_ID is not/),
    ]);
    expect(problemsOf(noBotToken)).toEqual([expect.stringMatching(/^SLACK_BOT_TOKEN is missing/)]);
  });
});

describe("what loadConfig says of a value that is set but wrong", () => {
  it.each(["xoxp-1-user", "xapp-1-app", "not-a-token"])(
    "refuses %s as SLACK_BOT_TOKEN by its shape",
    (token) => {
      expect(problemsOf({ ...valid, SLACK_BOT_TOKEN: token })).toEqual([
        "SLACK_BOT_TOKEN must be a bot token starting with xoxb- (OAuth & Permissions → Bot User OAuth Token), not a user (xoxp-) or app-level (xapp-) token.",
      ]);
    },
  );

  it("takes a rotating bot token (xoxe.xoxb-)", () => {
    expect(loadConfig({ ...valid, SLACK_BOT_TOKEN: "xoxe.xoxb-1-abc" }).slack.botToken).toBe(
      "xoxe.xoxb-1-abc",
    );
  });

  it("calls missing values incomplete and wrong ones invalid", () => {
    const message = (env: Record<string, string | undefined>) => {
      try {
        loadConfig(env);
      } catch (error) {
        return (error as Error).message.split("\n")[0];
      }
      throw new Error("expected a ConfigError");
    };
    expect(message({ ...valid, NOTE_TAKER_API_KEY: undefined })).toBe(
      "meeting-notes cannot start: the configuration is incomplete.",
    );
    expect(message({ ...valid, PORT: "eighty" })).toBe(
      "meeting-notes cannot start: some settings are invalid.",
    );
    expect(message({ ...valid, PORT: "eighty", NOTE_TAKER_API_KEY: undefined })).toBe(
      "meeting-notes cannot start: the configuration is incomplete and some settings are invalid.",
    );
  });
});
