import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";

/** Slack's published manifest schema, vendored (MIT) so the tests run from a bare clone. */
const SCHEMA_DIR = "../../test/fixtures/slack-manifest-schema";
const REMOTE = "https://raw.githubusercontent.com/slackapi/manifest-schema/v0.5.0/schemas";

const json = (path: string) =>
  JSON.parse(readFileSync(fileURLToPath(new URL(path, import.meta.url)), "utf8"));

/** Slack's own example manifest, which the schema must accept. */
export const exampleManifest = () => json(`${SCHEMA_DIR}/example.valid.v1.json`);

/** A validator of app manifests against Slack's schema (its `errors` say why one fails). */
export function manifestValidator() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(
    json(`${SCHEMA_DIR}/schemas/manifest.schema.1.0.0.json`),
    `${REMOTE}/manifest.schema.1.0.0.json`,
  );
  ajv.addSchema(
    json(`${SCHEMA_DIR}/schemas/manifest.schema.2.0.0.json`),
    `${REMOTE}/manifest.schema.2.0.0.json`,
  );
  return ajv.compile(json(`${SCHEMA_DIR}/manifest.schema.json`));
}
