import type { TemplateScope } from "../../jobs/index.ts";
import type { SlackFile } from "../directory/recording-file.ts";
import { INPUTS } from "../ids.ts";
import { type Locale, t } from "../messages/catalog.ts";
import type { ListenerDeps } from "./deps.ts";

export type TemplateChoice =
  | { kind: "none" }
  /** Kept once the modal is answered. */
  | { kind: "allowed"; file: SlackFile }
  /** The modal goes ahead without it, and the person hears so. */
  | { kind: "unreadable" }
  /** Nothing is read. */
  | { kind: "refused" };

/**
 * Their own upload or a file shared where they are a member (`Permissions.file`), judged from
 * `files.info`: a payload can name any file.
 */
export async function chooseTemplate(
  deps: ListenerDeps,
  fileId: string | undefined,
  userId: string,
): Promise<TemplateChoice> {
  if (fileId === undefined) return { kind: "none" };
  const file = await deps.directory.file(fileId);
  if (file === undefined) return { kind: "unreadable" };
  if (await deps.permissions.file(file, userId)) return { kind: "allowed", file };
  deps.logger.info({ fileId, userId }, "template refused: not the submitter's to use");
  return { kind: "refused" };
}

export function templateRefusal(locale: Locale): Record<string, string> {
  return { [INPUTS.template.block]: t(locale, "permission.template") };
}

/** Once per channel and content; undefined when none was allowed or it is no readable DOCX. */
export async function saveTemplate(
  deps: ListenerDeps,
  choice: TemplateChoice,
  scope: TemplateScope,
  options: { pinned?: boolean } = {},
): Promise<string | undefined> {
  if (choice.kind !== "allowed") return undefined;
  const fileId = choice.file.id;
  try {
    const file = await deps.directory.smallFile(choice.file);
    if (file === undefined) return undefined;
    return await deps.templates.save(scope, file.filename, file.data, options);
  } catch (error) {
    deps.logger.warn({ err: error, fileId }, "could not keep the template");
    return undefined;
  }
}
