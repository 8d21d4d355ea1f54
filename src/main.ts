import { ConfigError, loadConfig } from "./config.ts";
import { findMediaTools } from "./media/tools.ts";
import { StartupError } from "./startup-error.ts";

/** Process concerns only: configuration, start, and a clean stop on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  // Everything the bot writes (store files, recordings, DOCX files) is personal data: files
  // it creates are readable by its own user only, whatever the shell's umask.
  process.umask(0o077);
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // One readable message for the person starting the bot; a stack trace would only hide it.
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  // FFmpeg is looked for (three process starts) while the app's modules load; createApp
  // gets the same answer. The app is loaded only once the configuration holds.
  findMediaTools(config.media).catch(() => undefined);
  const { createApp } = await import("./app.ts");
  const app = await createApp(config);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    app.logger.info({ signal }, "stopping");
    app.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        app.logger.error({ err: error }, "could not stop cleanly");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  // A promise rejected inside a library (Bolt's receiver on a malformed request, say) must
  // not take every job of the process down with it: log it loudly and keep serving.
  process.on("unhandledRejection", (reason) => {
    app.logger.error({ err: reason }, "unhandled promise rejection");
  });
  await app.start();
}

main().catch((error: unknown) => {
  // A refusal the person starting the bot must fix is one sentence saying how, alone.
  const text =
    error instanceof StartupError
      ? error.message
      : `meeting-notes failed to start: ${error instanceof Error ? error.message : String(error)}`;
  process.stderr.write(`${text}\n`);
  process.exit(1);
});
