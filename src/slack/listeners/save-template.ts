import type { TemplateScope } from "../../jobs/index.ts";
import type { ListenerDeps } from "./deps.ts";

/**
 * Keeps a DOCX template chosen in a modal (a Slack file id), once per channel and content;
 * `pinned` for a channel's settings. Undefined when it cannot be read or is not a DOCX.
 */
export async function saveTemplate(
  deps: ListenerDeps,
  fileId: string,
  scope: TemplateScope,
  options: { pinned?: boolean } = {},
): Promise<string | undefined> {
  try {
    const file = await deps.directory.smallFile(fileId);
    if (file === undefined) return undefined;
    return await deps.jobs.saveTemplate(scope, file.filename, file.data, options);
  } catch (error) {
    deps.logger.warn({ err: error, fileId }, "could not keep the template");
    return undefined;
  }
}
