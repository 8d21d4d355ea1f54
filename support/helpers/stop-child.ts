import type { ChildProcess } from "node:child_process";

/** Sends SIGTERM to a child process and resolves once it has exited (at once if it has). */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
