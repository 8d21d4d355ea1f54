import { get } from "node:http";

/** The container's health probe (Dockerfile HEALTHCHECK): GET /healthz on PORT, nothing else. */

const TIMEOUT_MS = 3000;

function fail(reason: string): never {
  process.stderr.write(`healthcheck: ${reason}\n`);
  process.exit(1);
}

const rawPort = process.env.PORT?.trim() || "3000";
const port = Number(rawPort);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  fail("PORT is not a port number from 1 to 65535");
}

const url = `http://127.0.0.1:${port}/healthz`;

// One deadline for connecting, waiting and reading; unref'd so it never keeps the process up.
setTimeout(() => fail(`no answer from ${url} within ${TIMEOUT_MS} ms`), TIMEOUT_MS).unref();

get(url, { agent: false }, (res) => {
  res.resume();
  if (res.statusCode === 200) process.exit(0);
  fail(`${url} answered ${res.statusCode}`);
}).on("error", (error: NodeJS.ErrnoException) => {
  fail(`${url} is unreachable: ${error.code ?? error.message}`);
});
