import { tenantOf } from "../../src/jobs/index.ts";
import type { Store } from "../../src/store/index.ts";
import { occurrencesInStoreFiles, total } from "../helpers/store-file-text.ts";
import { people, upload } from "./oauth-kit.ts";
import type { OAuthStack } from "./oauth-stack.ts";

/**
 * What the end-to-end tests of forgetting plant in a workspace of an OAuth stack, and how
 * they look for it afterwards: in the raw bytes of the SQLite store's files.
 */

/** Texts planted in one workspace: a meeting's title, a channel's context, a template's name. */
export function phrasesOf(team: string) {
  const tag = team.slice(2).toLowerCase();
  return {
    title: `${tag}-title-phrase-4b2c`,
    context: `context phrase of ${tag} 93fd`,
    template: `${tag}-template-phrase-1e7a`,
  };
}

/** A DOCX's first bytes (a zip): what the template check asks of a Word file. */
const DOCX = (() => {
  const bytes = new Uint8Array(64).fill(1);
  bytes.set([0x50, 0x4b, 3, 4]);
  return bytes;
})();

/**
 * Plants the phrases of `team` under the install `install`: a recording uploaded as Slack
 * delivers it (its job waits for names, its file name the meeting's title), the channel's
 * settings with their context text, and a template the settings name.
 */
export async function plantWorkspaceData(
  stack: OAuthStack,
  install: string,
  team: string,
): Promise<{ jobId: string }> {
  const phrases = phrasesOf(team);
  const { jobId } = await upload(stack, team, `${phrases.title}.m4a`);
  const app = stack.replicas[0]?.app;
  if (app === undefined) throw new Error("the stack has no replica");
  const tenant = tenantOf(install, team);
  const { channel } = people(team);
  const templateId = await app.jobs.templates.save(
    { teamId: tenant, channelId: channel },
    `${phrases.template}.docx`,
    DOCX,
    { pinned: true },
  );
  await app.jobs.settings.set(tenant, channel, {
    autoTranscribe: true,
    contextText: phrases.context,
    templateId,
  });
  return { jobId };
}

/**
 * The phrases of `team` and how often each occurs in the raw bytes of the stack's store
 * files (all of them together): what a copy of the disk would show.
 */
export async function phrasesInStore(
  stack: OAuthStack,
  team: string,
): Promise<Record<string, number>> {
  const path = stack.env.STORE_URL.replace(/^sqlite:\/\//, "");
  const texts = Object.values(phrasesOf(team));
  const found = await occurrencesInStoreFiles(path, texts);
  return Object.fromEntries(texts.map((text) => [text, total(pick(found, text))]));
}

/** The counts of one text, by file. */
function pick(found: Record<string, Record<string, number>>, text: string) {
  return Object.fromEntries(
    Object.entries(found).map(([file, counts]) => [file, { [text]: counts[text] ?? 0 }]),
  );
}

/** Each store method's calls, counted in front of the real store (`wrapStore`). */
export class StoreCalls {
  readonly counts = new Map<string, number>();

  wrap(store: Store): Store {
    return new Proxy(store, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== "function" || typeof property !== "string") return value;
        return (...args: unknown[]) => {
          this.counts.set(property, (this.counts.get(property) ?? 0) + 1);
          return value.apply(target, args);
        };
      },
    });
  }

  of(method: string): number {
    return this.counts.get(method) ?? 0;
  }
}
