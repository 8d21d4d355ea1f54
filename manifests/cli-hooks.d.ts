/** @slack/cli-hooks ships JavaScript with JSDoc types only: what manifests/get-manifest.ts uses. */
declare module "@slack/cli-hooks/src/protocols.js" {
  /** How a hook answers the Slack CLI: `respond` prints the answer as the CLI asked for it. */
  export function getProtocol(args: string[]): { respond(data: string): void };
}
