import { execFileSync, spawnSync } from "node:child_process";

/** Whether util-linux's `prlimit` is here (Linux): the SQLite write-fault tests need it. */
export const HAS_PRLIMIT =
  process.platform === "linux" && spawnSync("prlimit", ["--version"]).status === 0;

/**
 * Makes every write to a regular file by this process fail (RLIMIT_FSIZE 0: `EFBIG`, which
 * Node receives as an error rather than a SIGXFSZ) until the returned function is called:
 * a disk that takes nothing more, without root, a real full disk or a tmpfs. Pipes and
 * sockets are not files: the test runner and the servers keep working.
 */
export function refuseFileWrites(): () => void {
  const pid = String(process.pid);
  const before = execFileSync("prlimit", ["--pid", pid, "--fsize", "--output=SOFT", "--noheadings"])
    .toString()
    .trim();
  execFileSync("prlimit", ["--pid", pid, "--fsize=0:"]);
  return () => void execFileSync("prlimit", ["--pid", pid, `--fsize=${before}:`]);
}
