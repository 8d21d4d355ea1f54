import { ChannelSettingsStore } from "../persistence/channel-settings.ts";
import { ChannelUploads } from "../persistence/channel-uploads.ts";
import { ModalMemory } from "../persistence/modal-memory.ts";
import { Templates } from "../persistence/templates.ts";
import { WorkspaceData } from "../persistence/workspace-data.ts";
import { markStoreFailures } from "../recovery/store-unavailable.ts";
import { Installs } from "./forget-install.ts";
import { JobService } from "./job-service.ts";
import type { JobServiceOptions } from "./job-service-types.ts";

/**
 * The use cases the Slack layer calls, over one store
 * whose failures reach them as `StoreUnavailableError`.
 */
export function createServices(options: Omit<JobServiceOptions, "settings" | "workspaces">) {
  const store = markStoreFailures(options.store);
  const { logger, retentionMs } = options;
  const workspaces = new WorkspaceData(store, logger);
  const now = options.now ?? Date.now;
  const templates = new Templates({ store, retentionMs, now, workspaces });
  const settings = new ChannelSettingsStore({ store, workspaces, templates });
  const repo = options.repo.over(store);
  const service = new JobService({ ...options, store, repo, settings, workspaces });
  const installs = new Installs({ ...options, repo, store, workspaces, now });
  const modals = new ModalMemory(store, workspaces);
  const uploads = new ChannelUploads({ store, workspaces, retentionMs });
  return { service, settings, uploads, templates, modals, installs };
}

export type Services = ReturnType<typeof createServices>;
