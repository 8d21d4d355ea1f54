import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { KnobsPatch } from "../emulator/knobs.ts";
import type { EmulatorStats } from "../emulator/stats.ts";
import { childEnv } from "./child-env.ts";
import { stopChild } from "./stop-child.ts";

const MAIN = fileURLToPath(new URL("../emulator/main.ts", import.meta.url));

/** An emulator in its own process, driven through its `/_emulator/*` control routes. */
export interface EmulatorProcess {
  baseUrl: string;
  resultOrigin: string;
  apiKey: string;
  stats(): Promise<EmulatorStats>;
  setKnobs(patch: KnobsPatch): Promise<void>;
  stop(): Promise<void>;
}

/** Starts `support/emulator/main.ts` on free ports and waits for its ready line. */
export async function spawnEmulator(env: Record<string, string> = {}): Promise<EmulatorProcess> {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...childEnv(),
      EMULATOR_PORT: "0",
      EMULATOR_RESULT_PORT: "0",
      EMULATOR_AUDIO_DURATION_MS: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const ready = await new Promise<{ baseUrl: string; resultOrigin: string; apiKey: string }>(
    (resolve, reject) => {
      const lines = createInterface({ input: child.stdout });
      lines.once("line", (line) => resolve(JSON.parse(line)));
      child.once("exit", (code) => reject(new Error(`emulator exited with ${code}`)));
    },
  );
  const control = `${new URL(ready.baseUrl).origin}/_emulator`;
  return {
    ...ready,
    async stats() {
      return (await fetch(`${control}/stats`)).json() as Promise<EmulatorStats>;
    },
    async setKnobs(patch) {
      const res = await fetch(`${control}/knobs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(patch),
      });
      if (!res.ok) throw new Error(`knobs refused: ${await res.text()}`);
    },
    stop: () => stopChild(child),
  };
}
