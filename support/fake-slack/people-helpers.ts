import { statSync } from "node:fs";
import type { EventDelivery } from "./event-delivery.ts";
import type { FakeSlack } from "./fake-slack-api.ts";
import type { FakeSlackStore } from "./fake-slack-store.ts";
import type { FakeMessage, SlackFileObject } from "./fake-slack-types.ts";
import { addShare, buildCanvasObject, buildFileObject, buildSnippetObject } from "./file-object.ts";
import { shareEvents } from "./slack-events.ts";

type PeopleHelpers = Pick<
  FakeSlack,
  | "addMessage"
  | "shareFile"
  | "addFile"
  | "addFileObject"
  | "deliverShare"
  | "shareCanvas"
  | "shareSnippet"
>;

/**
 * What people do in the fake workspace: post messages, share files, canvases and snippets.
 * A person cannot write to the app's DM when the installed manifest's Messages tab is off
 * (`messages_tab_enabled`: "whether or not the Messages tab in your App Home is enabled") or
 * read-only (`messages_tab_read_only_enabled`: "whether or not the users can send messages to
 * your app in the Messages tab"; both from slackapi/manifest-schema, kept in
 * test/fixtures/slack-manifest-schema, and https://docs.slack.dev/reference/app-manifest);
 * the App Home's Messages tab then has no composer (https://docs.slack.dev/surfaces/app-home).
 * The helpers throw rather than make a message Slack would never have.
 */
export function peopleHelpers(
  s: FakeSlackStore,
  delivery: Pick<EventDelivery, "send">,
): PeopleHelpers {
  const { botUserId } = s.workspace;
  const addMessage: FakeSlack["addMessage"] = (input) => {
    const channel = s.channel(input.channel);
    if (channel === undefined) throw new Error(`fake Slack: bad channel id ${input.channel}`);
    if (
      s.strict.messagesTab &&
      channel.is_im &&
      input.user !== botUserId &&
      !s.installed.peopleCanMessage
    ) {
      throw new Error(
        `fake Slack: ${input.user} cannot write in the app's DM ${channel.id}: the installed ` +
          "manifest's Messages tab is off or read-only, so Slack disables the composer",
      );
    }
    const message = s.addMessage({
      type: "message",
      channel: channel.id,
      ts: input.ts ?? s.nextTs(),
      text: input.text ?? "",
      user: input.user,
      ...(input.thread_ts !== undefined ? { thread_ts: input.thread_ts } : {}),
      ...(input.blocks !== undefined ? { blocks: input.blocks } : {}),
      ...(input.files !== undefined
        ? { subtype: "file_share", upload: true, files: input.files }
        : {}),
    });
    for (const file of input.files ?? []) addShare(s, file, channel, message);
    return message;
  };

  const shareFile: FakeSlack["shareFile"] = (file, where) =>
    addMessage({
      channel: where.channel,
      user: where.user ?? file.user,
      files: [file],
      ...(where.text !== undefined ? { text: where.text } : {}),
      ...(where.thread_ts !== undefined ? { thread_ts: where.thread_ts } : {}),
    });

  const addFile: FakeSlack["addFile"] = (input) => {
    if ((input.path === undefined) === (input.bytes === undefined)) {
      throw new Error("fake Slack: addFile needs exactly one of path and bytes");
    }
    const bytes = typeof input.bytes === "string" ? Buffer.from(input.bytes) : input.bytes;
    const source =
      input.path !== undefined ? { path: input.path } : { bytes: bytes ?? Buffer.alloc(0) };
    const realSize = "path" in source ? statSync(source.path).size : source.bytes.length;
    const file = buildFileObject(s, {
      id: input.id ?? s.newId("F"),
      name: input.name,
      size: input.size ?? realSize,
      user: input.user ?? "U0FAKEUSER",
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.filetype !== undefined ? { filetype: input.filetype } : {}),
      ...(input.mimetype !== undefined ? { mimetype: input.mimetype } : {}),
    });
    s.addFile(file, source, true);
    const entry = s.files.get(file.id);
    if (input.hiddenFromBot === true && entry !== undefined) entry.hiddenFromBot = true;
    if (input.channel !== undefined) shareFile(file, { channel: input.channel });
    return file;
  };

  const deliverShare = (message: FakeMessage): void => {
    const parent = s.parentUser(message.channel, message.thread_ts);
    const files = structuredClone(message.files ?? []);
    for (const event of shareEvents(s.workspace, message, files, parent)) delivery.send(event);
  };
  const shareMade = (
    file: SlackFileObject,
    bytes: Buffer,
    where: { channel: string; text?: string; thread_ts?: string },
  ) => {
    s.addFile(file, { bytes }, true);
    const message = shareFile(file, { ...where, user: file.user });
    deliverShare(message);
    return { file, message };
  };

  return {
    addMessage,
    shareFile,
    addFile,
    addFileObject: (file, content = {}) => {
      if (typeof file.id !== "string") throw new Error("fake Slack: a file object needs an id");
      const object = file as unknown as SlackFileObject;
      const bytes = content.bytes === undefined ? undefined : { bytes: content.bytes };
      const preview = content.preview === undefined ? undefined : { bytes: content.preview };
      s.addFile(object, bytes, true, preview);
      return object;
    },
    deliverShare,
    shareCanvas: (where) => {
      const user = where.user ?? "U0FAKEUSER";
      const title = where.title ?? "Meeting agenda";
      const bytes = Buffer.from(`<h1>${title}</h1>`);
      const file = buildCanvasObject(s, { id: s.newId("F"), title, user, size: bytes.length });
      return shareMade(file, bytes, where);
    },
    shareSnippet: (where) => {
      const user = where.user ?? "U0FAKEUSER";
      const file = buildSnippetObject(s, {
        id: s.newId("F"),
        content: where.content,
        user,
        ...(where.filetype !== undefined ? { filetype: where.filetype } : {}),
      });
      return shareMade(file, Buffer.from(where.content), where);
    },
  };
}
