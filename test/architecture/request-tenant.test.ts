import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SLACK = join(ROOT, "src", "slack");

/** The one module that decides a request's tenant (from Bolt's context). */
const TENANT_MODULE = "src/slack/installs/request-tenant.ts";

/**
 * Files that name such a field for another reason than telling whose a request is, and why.
 * Each must still match (the list cannot go stale).
 */
const ALLOWED: Record<string, string> = {
  "src/slack/installs/request-client.ts":
    "writes the request's workspace as the `team_id` argument of a Web API call; reads none",
  "src/slack/installs/installation-store.ts":
    "reads the team of a stored installation (@slack/oauth's Installation), not a request",
  "src/slack/installs/bolt-authorize.ts":
    "reads the team of the installation Bolt's authorize found, not a request",
};

/**
 * How a request's team or organisation is read from Slack's payload or from Bolt's context
 * without this module: the envelope's `team_id` (the host's in a Slack Connect channel),
 * `team.id` and `user.team_id` of interactions, an event's `team`, the view's
 * `app_installed_team_id`, `authorizations`, `enterprise_id`, `is_enterprise_install`, and
 * Bolt's `context.teamId` / `enterpriseId` / `isEnterpriseInstall`.
 */
const READS: RegExp[] = [
  /\bteam_id\b/,
  /\benterprise_id\b/,
  /\bapp_installed_team_id\b/,
  /\bis_enterprise_install\b/,
  /\bauthorizations\b/,
  /\.team\??\.(id|enterprise_id)\b/,
  /\bevent\??\.team\b/,
  /\bcontext\??\.(teamId|enterpriseId|isEnterpriseInstall)\b/,
];

/** Every `.ts` file under `dir`, relative to the repository root. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [relative(ROOT, path)] : [];
  });
}

/** The code of a file: comments removed (they may name these fields to explain them). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** The lines of `text` that read a request's team their own way. */
function readsOf(text: string): string[] {
  return code(text)
    .split("\n")
    .filter((line) => READS.some((read) => read.test(line)))
    .map((line) => line.trim());
}

describe("a request's tenant is read in one place", () => {
  const files = sourceFiles(SLACK);

  it("finds the reads it looks for (the scan works)", () => {
    expect(files).toContain(TENANT_MODULE);
    expect(readsOf('const teamId = (body as { team_id?: string }).team_id ?? "";')).toHaveLength(1);
    expect(readsOf("const teamId = body.team?.id ?? body.user.team_id;")).toHaveLength(1);
    expect(readsOf("const team = context.teamId;")).toHaveLength(1);
    expect(readsOf("const host = event.team;")).toHaveLength(1);
    expect(readsOf("const schema = z.object({ team_id: z.string() });")).toHaveLength(1);
    expect(readsOf("// the envelope's team_id is the host's")).toEqual([]);
    expect(readsOf("/** `body.team.id`, see https://docs.slack.dev/x */ const a = 1;")).toEqual([]);
  });

  it("nothing in src/slack but the tenant module reads a payload's team or Bolt's context for it", () => {
    const offenders = files
      .filter((file) => file !== TENANT_MODULE && !(file in ALLOWED))
      .flatMap((file) =>
        readsOf(readFileSync(join(ROOT, file), "utf8")).map((l) => `${file}: ${l}`),
      );
    expect(offenders).toEqual([]);
  });

  it("keeps each exception for its reason only", () => {
    for (const file of Object.keys(ALLOWED)) {
      expect(readsOf(readFileSync(join(ROOT, file), "utf8")), file).not.toEqual([]);
    }
  });
});
