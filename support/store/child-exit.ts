import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const storeModule = fileURLToPath(new URL("../../src/store/index.ts", import.meta.url));

/**
 * Runs `body` (ESM, with `openStore` in scope) in a fresh Node process and resolves to its
 * exit code, stdout and run time. A store that leaves a socket, file handle or timer behind
 * after `close()` keeps that process alive, and `timeoutMs` turns it into a failure.
 */
export function runStoreChild(
  body: string,
  timeoutMs = 10_000,
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const script = `import { openStore } from ${JSON.stringify(storeModule)};\n${body}`;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`child did not exit within ${timeoutMs} ms; stdout: ${stdout}`));
    }, timeoutMs);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}
