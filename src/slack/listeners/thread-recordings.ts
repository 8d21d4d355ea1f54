import { isStoreUnavailable, type SeenUpload } from "../../jobs/index.ts";
import { requestTenant } from "../installs/request-tenant.ts";
import type { ListenerDeps } from "./deps.ts";

/**
 * What the thread of a recording holds, for a mention said in it: the files of its first
 * message (as shown, to be described by `files.info`) and the text typed with them.
 */
export type ThreadParent =
  | { kind: "found"; files: readonly unknown[]; text: string | undefined }
  /** No recording the bot can find there (or the thread's first message cannot be read). */
  | { kind: "none" }
  /** Finding out needs a read of history that Slack does not allow now (its rate). */
  | { kind: "busy" };

/**
 * The recordings of the thread at `threadTs`, found without reading history where the bot
 * can: the upload it saw posted there (its event carried the files and the text), else the
 * jobs it started in that thread (their recordings); only a thread it knows nothing of
 * costs one read of its first message, which Slack may ration
 * (src/slack/rate-budget/history-rule.ts): then `busy`, said as one sentence.
 */
export async function threadParent(
  deps: ListenerDeps,
  channelId: string,
  threadTs: string,
): Promise<ThreadParent> {
  const known = await knownParent(deps, channelId, threadTs).catch((error: unknown) => {
    // The store cannot say now: the thread's first message can.
    if (!isStoreUnavailable(error)) throw error;
    return undefined;
  });
  if (known !== undefined) return known;
  const read = await deps.directory.message(channelId, threadTs);
  if (read.kind === "busy") return { kind: "busy" };
  if (read.kind === "unreadable") return { kind: "none" };
  return { kind: "found", files: read.message.files, text: read.message.text };
}

/** The thread's recordings as the bot stored them: the upload it saw, or its jobs there. */
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

/** A file known by id and name only: Slack's own mark for "ask `files.info`" (a stub). */
function toLookUp(file: { id: string; name?: string | undefined }) {
  return { ...file, file_access: "check_file_info" };
}
