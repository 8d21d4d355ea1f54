import type { Config } from "./config.ts";
import type { MediaPort } from "./jobs/index.ts";
import type { Logger } from "./logger.ts";
import { createPreparer } from "./media/preparer.ts";
import { findMediaTools } from "./media/tools.ts";

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
  return createPreparer(tools, {
    concurrency: config.media.concurrency,
    timeoutMs: config.media.timeoutMs,
    maxHours: config.media.maxHours,
    logger: logger.child({ name: "media" }),
  });
}
