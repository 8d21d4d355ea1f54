import type { Logger } from "pino";
import type {
  ChannelSettingsStore,
  ChannelUploads,
  Installs,
  JobService,
  ModalMemory,
  ResetNotice,
  Templates,
} from "../../jobs/index.ts";
import type { SlackDirectory } from "../directory/slack-directory.ts";
import type { InstallRecords } from "../installs/install-records.ts";
import type { Permissions } from "../permissions.ts";
import type { Responder } from "../responder/response-url.ts";
import type { SlackResponder } from "../responder/slack-responder.ts";
import type { PendingStarts } from "./pending-starts.ts";
import type { SaidOnce } from "./said-once.ts";

/** What every listener may use. Listeners validate, call the job service, reply — no more. */
export interface ListenerDeps {
  jobs: JobService;
  /** Channels' settings (`/meeting-notes settings`). */
  settings: ChannelSettingsStore;
  /** The uploads of recordings seen in each channel: mentions and the modal need no history. */
  uploads: ChannelUploads;
  /** DOCX templates people upload. */
  templates: Templates;
  /** What modals keep between Slack's requests (a submission's answer, other pages' input). */
  modals: ModalMemory;
  /** Forgets what an install left (an uninstall). */
  installs: Installs;
  /**
   * Installs by OAuth: the installation records, which say whether an uninstall names an
   * install of this deployment and its bot, and are deleted with its data. Absent in the
   * single-token mode (and with installs a test gives without records).
   */
  installRecords?: InstallRecords;
  /** Slack look-ups: people, members, files, messages. */
  directory: SlackDirectory;
  /** What listeners say in Slack: modals, App Home, ephemeral and thread replies. */
  responder: SlackResponder;
  /** Who may do what: every listener asks before it changes anything. */
  permissions: Permissions;
  /** Replies to a slash command's response_url. */
  respond: Responder;
  logger: Logger;
  now: () => number;
  /** What App Home tells a person whose jobs the bot's store lost lately, if anything. */
  storeResetNotice?: (teamId: string, userId: string) => Promise<ResetNotice | undefined>;
  /** Keeps what the store could not record after Slack's ack, to be replayed later. */
  pending: PendingStarts;
  /** Uploads said lost (neither stored nor kept), by channel and file: said once each. */
  saidLost: SaidOnce;
}
