import type { SeenUpload } from "../../jobs/index.ts";
import { requestTenant } from "../installs/request-tenant.ts";
import { type ListenerDeps, orWhenStoreDown } from "./deps.ts";

export type ThreadParent =
  | { kind: "found"; files: readonly unknown[]; text: string | undefined }
  /** Or the thread's first message cannot be read. */
  | { kind: "none" }
  /** Slack does not allow a read of history now. */
  | { kind: "busy" };

/**
 * The upload the bot saw posted there, else its jobs in that thread; only an unknown thread
 * costs a read of its first message, which Slack may ration (rate-budget/history-rule.ts).
 */
export async function threadParent(
  deps: ListenerDeps,
  channelId: string,
  threadTs: string,
): Promise<ThreadParent> {
  // When the store cannot say, the thread's first message can.
  const known = await orWhenStoreDown(knownParent(deps, channelId, threadTs), undefined);
  if (known !== undefined) return known;
  const read = await deps.directory.message(channelId, threadTs);
  if (read.kind === "busy") return { kind: "busy" };
  if (read.kind === "unreadable") return { kind: "none" };
  return { kind: "found", files: read.message.files, text: read.message.text };
}

async function knownParent(
  deps: ListenerDeps,
  channelId: string,
  threadTs: string,
): Promise<ThreadParent | undefined> {
  const tenant = requestTenant();
  const seen: SeenUpload | undefined = await deps.uploads.at(tenant, channelId, threadTs);
  if (seen !== undefined)
    return { kind: "found", files: seen.files.map(toLookUp), text: seen.text };
  const jobs = (await deps.jobs.listByChannel(tenant, channelId)).filter(
    (job) => job.origin.threadTs === threadTs,
  );
  if (jobs.length === 0) return undefined;
  const files = jobs.map((job) => toLookUp({ id: job.source.fileId, name: job.source.filename }));
  return { kind: "found", files, text: undefined };
}

/** Slack's own mark for a file stub: "ask `files.info`". */
function toLookUp(file: { id: string; name?: string | undefined }) {
  return { ...file, file_access: "check_file_info" };
}
