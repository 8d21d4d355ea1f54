import { type Interceptable, MockAgent } from "undici";
import {
  fastRetryPolicy,
  NoteTakerClient,
  type NoteTakerClientOptions,
} from "../../src/notetaker/index.ts";

export const API_ORIGIN = "http://notes.test";
export const BASE_PATH = "/api/v1/third-party/note-taker";
export const API_KEY = "test-api-key-0123456789";

/**
 * A `NoteTakerClient` wired to an undici `MockAgent` with real network access disabled.
 * `waits` records every retry wait instead of sleeping.
 */
export function mockedClient(overrides: Partial<NoteTakerClientOptions> = {}) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const waits: number[] = [];
  const client = new NoteTakerClient({
    baseUrl: `${API_ORIGIN}${BASE_PATH}`,
    apiKey: API_KEY,
    dispatcher: agent,
    retryPolicy: fastRetryPolicy,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...overrides,
    // The API host is a DNS name, so result links get the strict rules (https, public
    // addresses); the mock answers for them in place of the network.
    resultLinks: { dispatcher: agent, ...overrides.resultLinks },
  });
  const api: Interceptable = agent.get(API_ORIGIN);
  return { agent, api, client, waits, origin: (url: string) => agent.get(url) };
}

export const json = { headers: { "content-type": "application/json" } };
