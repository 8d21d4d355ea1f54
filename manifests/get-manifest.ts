import { getProtocol } from "@slack/cli-hooks/src/protocols.js";
import manifest from "./manifest.socket.json" with { type: "json" };

/*
 * The Slack CLI's `get-manifest` hook (.slack/hooks.json), which `slack run` asks before it
 * creates or updates the development app: the Socket Mode manifest, since that app has no
 * public URL and the bot connects out to Slack. @slack/cli-hooks' own get-manifest reads a
 * `manifest.json` it searches for from the project root down, which this repository keeps
 * as manifests/manifest.socket.json. The answer goes out in the protocol the CLI asked for,
 * with the package's own implementation: under `--protocol=message-boundaries` it is wrapped
 * in the CLI's boundary, so nothing else on stdout is taken for it
 * (https://docs.slack.dev/tools/slack-cli/reference/hooks, "CLI-SDK protocol negotiation").
 */
getProtocol(process.argv.slice(1)).respond(JSON.stringify(manifest));
