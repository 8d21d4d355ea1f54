import { createEmulator } from "./create-emulator.ts";
import type { KnobsPatch } from "./knobs.ts";

/**
 * `npm run emulator`: runs the Note Service emulator until SIGTERM/SIGINT.
 * Prints one JSON line `{"baseUrl","resultOrigin","apiKey"}` on stdout once listening (tests
 * spawn this file and read that line), then hints for people on stderr.
 */
async function main(): Promise<void> {
  const env = process.env;
  // Long enough for a person to see the progress bar move; tests pass 0. The note follows
  // the audio unless set, so a test that zeroes the audio duration is fast throughout.
  const audioDurationMs = readInteger("EMULATOR_AUDIO_DURATION_MS", 8000);
  const knobs: KnobsPatch = {
    pollsToComplete: readInteger("EMULATOR_POLLS_TO_COMPLETE", 2),
    audioDurationMs,
    noteDurationMs: readInteger("EMULATOR_NOTE_DURATION_MS", Math.round(audioDurationMs / 2)),
  };
  const emulator = await createEmulator({
    port: readInteger("EMULATOR_PORT", 4010),
    resultPort: readInteger("EMULATOR_RESULT_PORT", 4011),
    host: env.EMULATOR_HOST || "127.0.0.1",
    apiKey: env.EMULATOR_API_KEY || "dev-key",
    knobs,
    pollLog: env.EMULATOR_POLL_LOG === "1",
    reuseDocx: env.EMULATOR_REUSE_DOCX === "1",
  });

  const { baseUrl, resultOrigin, apiKey } = emulator;
  process.stdout.write(`${JSON.stringify({ baseUrl, resultOrigin, apiKey })}\n`);
  process.stderr.write(
    [
      `Note Service emulator listening; files served from ${resultOrigin}`,
      "Point the bot at it with:",
      `  NOTE_TAKER_BASE_URL=${baseUrl} NOTE_TAKER_API_KEY=${apiKey}`,
      `Control: GET ${new URL(baseUrl).origin}/_emulator/stats, POST /_emulator/knobs, POST /_emulator/reset`,
      "",
    ].join("\n"),
  );

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

/** Reads a whole non-negative number from the environment; empty or unset gives `fallback`. */
function readInteger(name: string, fallback: number): number {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new Error(`${name} must be a whole number of 0 or more, not "${raw}".`);
  }
  return value;
}

main().catch((error: unknown) => {
  process.stderr.write(`The emulator could not start: ${String(error)}\n`);
  process.exit(1);
});
