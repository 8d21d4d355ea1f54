import type { Config } from "./config.ts";
import type { MediaPort } from "./jobs/index.ts";
import type { Logger } from "./logger.ts";
import { findMediaTools } from "./media/tools.ts";
import { MAX_SOURCE_BYTES } from "./recordings/index.ts";

/**
 * FFmpeg, when installed: recordings the Note Service would refuse as they are get their
 * audio prepared. Without it the bot says so of those files only; everything else works.
 */
export async function openMedia(config: Config, logger: Logger): Promise<MediaPort | undefined> {
  const tools = await findMediaTools(config.media);
  if (tools === undefined) {
    logger.warn(
      { ffmpegPath: config.media.ffmpegPath ?? "ffmpeg" },
      "FFmpeg not found: videos and recordings over 300 MB or in other formats are refused",
    );
    return undefined;
  }
  const { ffmpeg, ffprobe, version, addressSpace } = tools;
  logger.info({ ffmpeg, ffprobe, version, memoryLimit: addressSpace?.bytes }, "FFmpeg found");
  if (addressSpace === undefined) {
    logger.warn("prlimit not found: FFmpeg runs without its memory limit (install util-linux)");
  }
  // The preparer's modules load with the first recording to prepare, not at start-up.
  let preparer: Promise<MediaPort> | undefined;
  return {
    maxSourceBytes: MAX_SOURCE_BYTES,
    async prepare(o) {
      preparer ??= import("./media/preparer.ts").then(({ createPreparer }) =>
        createPreparer(tools, {
          concurrency: config.media.concurrency,
          timeoutMs: config.media.timeoutMs,
          maxHours: config.media.maxHours,
          logger: logger.child({ name: "media" }),
        }),
      );
      return (await preparer).prepare(o);
    },
  };
}
