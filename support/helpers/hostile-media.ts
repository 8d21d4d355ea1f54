import { execFile } from "node:child_process";
import { chmod, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { crc32, createDeflate } from "node:zlib";
import { ffmpeg } from "./media-files.ts";

/*
 * Hostile uploads, made by the tests themselves (no binary fixtures): files that pass for
 * recordings by their name or their first bytes and would make FFmpeg read other files,
 * generate endless sound, or allocate without bound. And the tools to tell, from the audio
 * the Note Service received, whose sound it is.
 */

const run = promisify(execFile);

/** An ID3v2.4 tag with an empty body: what an attacker puts before anything. */
export const ID3_HEADER = Buffer.from("ID3\x04\0\0\0\0\0\0", "latin1");

/** `body` behind an empty ID3 tag: an MPEG audio file by its first bytes alone. */
export function id3Prefixed(body: string | Buffer): Buffer {
  return Buffer.concat([ID3_HEADER, Buffer.isBuffer(body) ? body : Buffer.from(body)]);
}

/** An FFmpeg concat script naming `files` (relative names resolve beside the script). */
export function concatList(files: readonly string[]): string {
  return `ffconcat version 1.0\n${files.map((f) => `file '${f}'\n`).join("")}`;
}

/** An HLS playlist whose segments are `files` (absolute paths, `../` climbs). */
export function hlsPlaylist(files: readonly string[]): string {
  const segments = files.map((f) => `#EXTINF:9.0,\n${f}\n`).join("");
  return `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:0\n${segments}#EXT-X-ENDLIST\n`;
}

/**
 * A ProTracker module ("M.K." at 1080): 4 channels, one pattern whose every row repeats a
 * looping sample. Tracker modules decode into as much sound as their loops say.
 */
export function trackerModule(): Buffer {
  const header = Buffer.alloc(1084);
  header.write("meeting", 0, "latin1");
  // Sample 1: 1,024 words, full volume, looping over all of it.
  const sample = 20;
  header.writeUInt16BE(1024, sample + 22);
  header[sample + 25] = 64;
  header.writeUInt16BE(0, sample + 26);
  header.writeUInt16BE(1024, sample + 28);
  header[950] = 1; // song length: one position
  header[951] = 127;
  header.write("M.K.", 1080, "latin1");
  const pattern = Buffer.alloc(64 * 4 * 4);
  for (let note = 0; note < 64 * 4; note++) {
    // Sample 1, period 428 (C-2), no effect.
    pattern.writeUInt32BE((0 << 28) | (428 << 16) | (1 << 12), note * 4);
  }
  const wave = Buffer.alloc(2048);
  for (let i = 0; i < wave.length; i++) wave[i] = (Math.sin(i / 4) * 100) & 0xff;
  return Buffer.concat([header, pattern, wave]);
}

/**
 * A two-second m4a whose movie header (`mvhd`) declares `hours`: the container claims far
 * more than the file holds, as a crafted file can (FFmpeg reports the declared length).
 */
export async function m4aClaiming(path: string, hours: number): Promise<void> {
  await ffmpeg("-f", "lavfi", "-i", "sine=f=440:d=2:r=16000", "-c:a", "aac", "-f", "mp4", path);
  const bytes = await readFile(path);
  const at = bytes.indexOf("mvhd");
  // Version 0: version and flags, created, modified, then the timescale and the duration.
  const timescale = bytes.readUInt32BE(at + 16);
  bytes.writeUInt32BE(Math.round(hours * 3600 * timescale), at + 20);
  await writeFile(path, bytes);
}

/**
 * A PNG of `width` × `height` RGB pixels, all black: a few MB that decode into
 * width × height × 3 bytes (12288 × 9216: 340 MB).
 */
export async function blackPng(width: number, height: number): Promise<Buffer> {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const typed = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(typed) >>> 0);
    return Buffer.concat([length, typed, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bits per channel
  ihdr[9] = 2; // RGB
  const deflate = createDeflate({ level: 1 });
  const parts: Buffer[] = [];
  deflate.on("data", (data: Buffer) => parts.push(data));
  const done = new Promise((resolve, reject) => deflate.on("end", resolve).on("error", reject));
  // Each row: filter byte 0 and black pixels. Written 64 rows at a time.
  const rows = Buffer.alloc((width * 3 + 1) * 64);
  for (let y = 0; y < height; y += 64) {
    if (!deflate.write(rows)) await new Promise((resolve) => deflate.once("drain", resolve));
  }
  deflate.end();
  await done;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", Buffer.concat(parts)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/**
 * A Matroska file with real sound (a `hz` tone for `seconds`) and one 12288 × 9216 PNG
 * frame: a few MB, and an ffprobe that decodes the frame peaks at ~384 MB (16384 × 16000,
 * the size first seen, costs ~820 MB and only takes longer to make).
 */
export async function hugeFrameMkv(dir: string, path: string, hz: number, seconds = 3) {
  const png = join(dir, "huge-frame.png");
  await writeFile(png, await blackPng(12288, 9216));
  await ffmpeg(
    "-f",
    "lavfi",
    "-i",
    `sine=f=${hz}:d=${seconds}`,
    "-f",
    "png_pipe",
    "-i",
    png,
    "-map",
    "1:v",
    "-map",
    "0:a",
    "-c:v",
    "copy",
    "-c:a",
    "libopus",
    path,
  );
}

/** A tone of `hz` for `seconds`, in the container and codec the arguments name. */
export function tone(path: string, hz: number, seconds: number, ...codec: string[]) {
  return ffmpeg("-f", "lavfi", "-i", `sine=f=${hz}:d=${seconds}:r=16000`, ...codec, path);
}

/**
 * How much of a recording's sound is at each of `frequencies`, as a share of all of it
 * (Goertzel over the audio decoded to 8 kHz mono): a tone's own frequency is near 1, one
 * it does not hold near 0.
 */
export async function toneShares(
  path: string,
  frequencies: readonly number[],
): Promise<Map<number, number>> {
  const rate = 8000;
  const { stdout } = await run(
    "ffmpeg",
    ["-v", "error", "-i", path, "-ac", "1", "-ar", String(rate), "-f", "s16le", "pipe:1"],
    { encoding: "buffer", maxBuffer: 512 * 1024 * 1024 },
  );
  const samples = new Int16Array(stdout.buffer, stdout.byteOffset, Math.floor(stdout.length / 2));
  let total = 0;
  for (const s of samples) total += s * s;
  const shares = new Map<number, number>();
  for (const hz of frequencies) {
    const coefficient = 2 * Math.cos((2 * Math.PI * hz) / rate);
    let previous = 0;
    let beforePrevious = 0;
    for (const s of samples) {
      const current = s + coefficient * previous - beforePrevious;
      beforePrevious = previous;
      previous = current;
    }
    const power = previous ** 2 + beforePrevious ** 2 - coefficient * previous * beforePrevious;
    // A pure tone's Goertzel power is about N/2 times its energy.
    shares.set(hz, total === 0 ? 0 : power / ((samples.length / 2) * total));
  }
  return shares;
}

/** Every regular file under `dir`, one folder deep (a job's folder). */
export async function filesIn(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isFile()) found.push(path);
    else if (entry.isDirectory()) {
      for (const inner of await readdir(path).catch(() => [])) found.push(join(path, inner));
    }
  }
  return found;
}

/** One run of a tool through {@link measuredTools}. */
export interface MeasuredRun {
  tool: "ffmpeg" | "ffprobe";
  args: string[];
  /** Its largest resident memory, bytes (the kernel's `ru_maxrss`, from `wait4`). */
  maxRss: number;
  /** The names of its environment variables, and whether any value held one of the secrets. */
  environment: string[];
  sawSecret: boolean;
  /** Its address-space limit (RLIMIT_AS), bytes; -1 when unlimited. */
  addressSpace: number;
  exitCode: number;
}

/**
 * FFmpeg and ffprobe as the bot runs them, each through a small Python wrapper that runs
 * the real program, waits for it with `wait4` and logs its peak resident memory (exact, not
 * sampled: a probe over in 20 ms is measured as well as an hour-long run), its environment
 * and its memory limit. The wrapper stops the program if it is itself killed.
 */
export async function measuredTools(dir: string, secrets: readonly string[]) {
  await mkdir(dir, { recursive: true });
  const log = join(dir, "runs.jsonl");
  const which = async (command: string, ...args: string[]) =>
    (await run(command, args)).stdout.trim();
  const python = await which("python3", "-c", "import sys; print(sys.executable)");
  for (const tool of ["ffmpeg", "ffprobe"] as const) {
    const real = await which("sh", "-c", `command -v ${tool}`);
    const script = `#!${python}
import ctypes, json, os, resource, signal, subprocess, sys
def die_with_parent():
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
# The environment as the bot gave it (Python itself may add to os.environ, as LC_CTYPE).
given = dict(e.split("=", 1) for e in open("/proc/self/environ").read().split("\\0") if "=" in e)
child = subprocess.Popen([${JSON.stringify(real)}] + sys.argv[1:], env=given, preexec_fn=die_with_parent)
_, status, usage = os.wait4(child.pid, 0)
code = os.waitstatus_to_exitcode(status)
limit = resource.getrlimit(resource.RLIMIT_AS)[0]
secrets = ${JSON.stringify(secrets)}
with open(${JSON.stringify(log)}, "a") as f:
    f.write(json.dumps({
        "tool": ${JSON.stringify(tool)}, "args": sys.argv[1:], "maxRss": usage.ru_maxrss * 1024,
        "environment": sorted(given), "sawSecret": any(s in v for s in secrets for v in given.values()),
        "addressSpace": -1 if limit == resource.RLIM_INFINITY else limit, "exitCode": code,
    }) + "\\n")
sys.exit(code if code >= 0 else 128 - code)
`;
    await writeFile(join(dir, tool), script);
    await chmod(join(dir, tool), 0o755);
  }
  return {
    ffmpegPath: join(dir, "ffmpeg"),
    /** Every run so far, the version checks at start-up left out. */
    async runs(): Promise<MeasuredRun[]> {
      const text = await readFile(log, "utf8").catch(() => "");
      return text
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as MeasuredRun)
        .filter((r) => !r.args.includes("-version"));
    },
  };
}
