import type { TemplateScope } from "../../jobs/index.ts";
import type { SlackFile } from "../directory/recording-file.ts";
import { INPUTS } from "../ids.ts";
import { type Locale, t } from "../messages/index.ts";
import type { ListenerDeps } from "./deps.ts";

/** A DOCX template named in a modal's `file_input`, judged before the modal is answered. */
export type TemplateChoice =
  /** None was chosen. */
  | { kind: "none" }
  /** Read from Slack and the submitter's to use: kept once the modal is answered. */
  | { kind: "allowed"; file: SlackFile }
  /** Slack could not describe it: the modal goes ahead without it, and the person hears so. */
  | { kind: "unreadable" }
  /** Not theirs to use: the modal answers with {@link templateRefusal}, nothing is read. */
  | { kind: "refused" };

/**
 * Reads the template a submission names and checks the submitter may use it: their own
 * upload, or a file shared where they are a member (`Permissions.file`, the rule for
 * recordings too). Slack's SDKs give a `file_input`'s state as whole file objects
 * (bolt-js `ViewStateValue.files: UploadedFile[]`, java-slack-sdk `ViewState.Value.files`),
 * but only the id is taken from the payload: the uploader and the shares come from
 * `files.info`, as Slack has them now, since a payload can name any file id.
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

/** The modal's answer to a refused template: an error on the template input. */
export function templateRefusal(locale: Locale): Record<string, string> {
  return { [INPUTS.template.block]: t(locale, "permission.template") };
}

/**
 * Keeps an allowed template, once per channel and content; `pinned` for a channel's
 * settings. Undefined when none was allowed, or it cannot be downloaded or is not a DOCX.
 */
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
