import { once } from "node:events";
import type { ServerResponse } from "node:http";

/** Segments in the block that is written over and over: about 100 KiB. */
const SEGMENTS_PER_BLOCK = 500;

/** One block of segments, built once: a huge dialog repeats it rather than building more. */
const BLOCK = Buffer.from(
  Array.from({ length: SEGMENTS_PER_BLOCK }, (_, index) =>
    JSON.stringify({
      speaker_id: `speaker_${(index % 2) + 1}`,
      start_seconds: index * 4,
      end_seconds: index * 4 + 3.5,
      text: `Đoạn ${index}: chúng ta bàn tiếp về ngân sách quý ba và lịch phát hành ứng dụng.`,
    }),
  ).join(","),
);

/**
 * Streams a valid dialog array of at least `minBytes` bytes with back-pressure and no
 * `Content-Length`, so a client can only learn its size by reading it. The same block of
 * segments is written again and again (no memory grows here, so a test measures the
 * client's); its text is Vietnamese, so multi-byte characters fall across chunk boundaries.
 */
export async function streamHugeDialog(res: ServerResponse, minBytes: number): Promise<void> {
  res.writeHead(200, {
    "content-type": "application/json",
    "content-disposition": 'attachment; filename="dialog.json"',
  });
  const closed = () => res.destroyed || res.writableEnded;
  res.write("[");
  let written = 1;
  while (written < minBytes && !closed()) {
    if (written > 1) res.write(",");
    written += BLOCK.length + 1;
    if (!res.write(BLOCK)) {
      // Wait for the client to read on, or to hang up; then drop the other listener.
      const done = new AbortController();
      const { signal } = done;
      await Promise.race([once(res, "drain", { signal }), once(res, "close", { signal })]);
      done.abort();
    }
  }
  if (!closed()) res.end("]");
}
