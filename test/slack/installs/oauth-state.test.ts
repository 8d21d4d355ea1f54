import { afterEach, describe, expect, it } from "vitest";
import {
  onceStateStore,
  SpentStateError,
  STATE_LIFETIME_S,
  stateCookie,
} from "../../../src/slack/installs/oauth-state.ts";
import { openStore, type Store } from "../../../src/store/index.ts";

const SECRET = "a-state-secret-of-this-test-0123456789";
const OPTIONS = {
  scopes: ["chat:write"],
  redirectUri: "https://notes.example/slack/oauth_redirect",
};

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

async function states() {
  store = await openStore("memory://");
  return onceStateStore({ secret: SECRET, store });
}

describe("the OAuth state", () => {
  it("is taken once when two redirects bring it back at the same moment", async () => {
    const s = await states();
    const state = await s.generateStateParam(OPTIONS, new Date());
    const both = await Promise.allSettled([
      s.verifyStateParam(new Date(), state),
      s.verifyStateParam(new Date(), state),
    ]);
    expect(both.filter((r) => r.status === "fulfilled")).toEqual([
      { status: "fulfilled", value: OPTIONS },
    ]);
    const refused = both.find((r) => r.status === "rejected");
    expect(refused?.status === "rejected" && refused.reason).toBeInstanceOf(SpentStateError);
  });

  it("claims nothing for a forged or expired state: the person's own state still works", async () => {
    const s = await states();
    const now = new Date();
    const state = await s.generateStateParam(OPTIONS, now);
    const [head, body] = state.split(".");
    await expect(s.verifyStateParam(now, `${head}.${body}.forged`)).rejects.toThrow(
      /state parameter/,
    );
    const late = new Date(now.getTime() + (STATE_LIFETIME_S + 1) * 1000);
    await expect(s.verifyStateParam(late, state)).rejects.toThrow(/expired/);
    await expect(s.verifyStateParam(now, state)).resolves.toEqual(OPTIONS);
    await expect(s.verifyStateParam(now, state)).rejects.toBeInstanceOf(SpentStateError);
  });

  it("claims it under a hash: the state itself is not a key of the store", async () => {
    const s = await states();
    const state = await s.generateStateParam(OPTIONS, new Date());
    await s.verifyStateParam(new Date(), state);
    expect(await store?.claim(`oauth-state:${state}`, 1000)).toBe(true);
  });

  it("goes in a cookie that only Slack's top-level redirect back carries", () => {
    expect(stateCookie("abc")).toBe(
      "slack-app-oauth-state=abc; Secure; HttpOnly; SameSite=Lax; Path=/; Max-Age=600",
    );
  });
});
