import { CHANNEL, statusMessage } from "../e2e/stack.ts";
import { eventually } from "../helpers/eventually.ts";
import type { AppProcess } from "../helpers/spawn-app.ts";
import type { FaultWorld } from "./fault-world.ts";
import type { Upload } from "./people.ts";

/** The job of an upload, from its status message's metadata (waits for the message). */
export async function jobOf(world: FaultWorld, u: Upload): Promise<string> {
  const status = await eventually(
    () => statusMessage(world.fake.thread(CHANNEL, u.ts)),
    (m) => m !== undefined,
    { what: `${u.name}'s status message`, timeoutMs: 30_000 },
  );
  return String(status?.metadata?.event_payload.job_id);
}

/** Whether `bot` logged `jobId` changing stage `dir` (`to` or `from`) `stage`. */
export function changed(bot: AppProcess, jobId: string, dir: "to" | "from", stage: string) {
  return bot.lines.some(
    (line) =>
      line.includes('"msg":"job stage changed"') &&
      line.includes(`"jobId":"${jobId}"`) &&
      line.includes(`"${dir}":"${stage}"`),
  );
}

/** Waits until `bot` logged `jobId` entering `stage`. */
export function reached(world: FaultWorld, jobId: string, stage: string, timeoutMs = 30_000) {
  const bot = world.bot;
  return eventually(
    () => changed(bot, jobId, "to", stage),
    (yes) => yes,
    {
      what: `job ${jobId} in ${stage}`,
      timeoutMs,
      intervalMs: 5,
      context: () => bot.lines.slice(-20).join("\n"),
    },
  );
}
