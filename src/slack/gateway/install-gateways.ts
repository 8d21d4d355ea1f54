import { LRUCache } from "lru-cache";
import {
  type DownloadLimits,
  installOf,
  type Job,
  type NotePerson,
  type ReviewPort,
  type ReviewState,
  type SlackPort,
  type StatusMode,
} from "../../jobs/index.ts";
import type { Dialog, SpeakerMapEntry } from "../../notetaker/index.ts";
import { callScopeOf } from "../installs/install-key.ts";
import { splitNote } from "../text/index.ts";

const MAX_INSTALLS = 500;

/**
 * The job layer's `SlackPort` over every install: each call goes to the gateway of the job's
 * install.
 */
export class InstallGateways implements SlackPort {
  readonly #make: (install: string, teamId: string) => SlackPort;
  readonly #gateways: LRUCache<string, SlackPort>;
  readonly review: ReviewPort;

  constructor(make: (install: string, teamId: string) => SlackPort, max = MAX_INSTALLS) {
    this.#make = make;
    this.#gateways = new LRUCache({ max });
    this.review = {
      open: (job: Job, since?: number) => this.#of(job).review.open(job, since),
      show: (job: Job, state: ReviewState) => this.#of(job).review.show(job, state),
      remind: (job: Job, since?: number) => this.#of(job).review.remind(job, since),
    };
  }

  #of(job: Job): SlackPort {
    const install = installOf(job.origin);
    const key = callScopeOf(install, job.origin.teamId);
    let gateway = this.#gateways.get(key);
    if (gateway === undefined) {
      gateway = this.#make(install, job.origin.teamId);
      this.#gateways.set(key, gateway);
    }
    return gateway;
  }

  showStatus(
    job: Job,
    mode?: StatusMode,
    latest?: () => Promise<Job | undefined>,
    statusMayExist?: boolean,
  ): Promise<string> {
    return this.#of(job).showStatus(job, mode, latest, statusMayExist);
  }

  downloadSource(job: Job, destPath: string, signal: AbortSignal, o: DownloadLimits) {
    return this.#of(job).downloadSource(job, destPath, signal, o);
  }

  splitNote(markdown: string, people?: readonly NotePerson[]): string[] {
    return splitNote(markdown, people ?? []);
  }

  postNotePart(
    job: Job,
    text: string,
    index: number,
    total: number,
    people?: readonly NotePerson[],
  ) {
    return this.#of(job).postNotePart(job, text, index, total, people);
  }

  uploadDocx(job: Job, path: string, signal: AbortSignal) {
    return this.#of(job).uploadDocx(job, path, signal);
  }

  uploadTranscript(
    job: Job,
    dialog: Dialog,
    speakerMap: readonly SpeakerMapEntry[],
    signal: AbortSignal,
  ) {
    return this.#of(job).uploadTranscript(job, dialog, speakerMap, signal);
  }

  createCanvas(job: Job, markdown: string, people: readonly NotePerson[]) {
    return this.#of(job).createCanvas(job, markdown, people);
  }

  editCanvas(job: Job, canvasId: string, markdown: string, people: readonly NotePerson[]) {
    return this.#of(job).editCanvas(job, canvasId, markdown, people);
  }

  shareCanvas(job: Job, canvasId: string) {
    return this.#of(job).shareCanvas(job, canvasId);
  }

  findCanvas(job: Job, since: number) {
    return this.#of(job).findCanvas(job, since);
  }

  deleteFile(job: Job, fileId: string) {
    return this.#of(job).deleteFile(job, fileId);
  }

  findDelivered(job: Job) {
    return this.#of(job).findDelivered(job);
  }
}
