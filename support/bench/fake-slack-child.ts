/**
 * The fake Slack in its own process for the benchmarks. Usage:
 * node support/bench/fake-slack-child.ts '{"files":[{"name":"a.mp3","path":"/tmp/a.mp3"}]}'
 * Prints one JSON line (`FakeSlackReady`) once listening; stops on SIGTERM. `socketMode`:
 * a Socket Mode server too (the socket manifest installed); `rateScale`: Slack's tiers times
 * this (a benchmark that connects dozens of times a minute raises them).
 */
import { statSync } from "node:fs";
import { SOCKET_MANIFEST } from "../fake-slack/app-manifest.ts";
import { createFakeSlack } from "../fake-slack/create-fake-slack.ts";

const config = JSON.parse(process.argv[2] ?? "{}") as {
  files?: { name: string; path: string }[];
  socketMode?: boolean;
  rateScale?: number;
};
const fake = await createFakeSlack({
  ...(config.socketMode === true ? { socketMode: true, manifest: SOCKET_MANIFEST } : {}),
  ...(config.rateScale === undefined ? {} : { knobs: { rateScale: config.rateScale } }),
});
// The person who sends the benchmark's commands and messages, and their channel.
fake.addUser({ id: "U0BENCH01", name: "bench", real_name: "Bench User", locale: "en-US" });
fake.addChannel({ id: "C0BENCH01", name: "bench" });
const files = (config.files ?? []).map((input) => {
  const file = fake.addFile({ name: input.name, path: input.path });
  return { id: file.id, url: file.url_private_download, size: statSync(input.path).size };
});
process.stdout.write(
  `${JSON.stringify({
    apiUrl: fake.apiUrl,
    origin: fake.origin,
    botToken: fake.botToken,
    appToken: fake.socket?.appToken,
    teamId: fake.teamId,
    botUserId: fake.botUserId,
    files,
    responseUrl: fake.responseUrl(),
  })}\n`,
);

// The fake keeps a record of every call; a long load run would only grow it.
const trim = setInterval(() => {
  for (const list of [fake.calls, fake.downloads, fake.responseUrlPosts] as unknown[][]) {
    if (list.length > 1000) list.splice(0, list.length - 100);
  }
}, 1000);

const stop = () => {
  clearInterval(trim);
  fake.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
