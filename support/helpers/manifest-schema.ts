import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { TYPES_MISSING_FROM_SCHEMA } from "../fake-slack/manifest-functions.ts";

/**
 * Slack's published manifest schema, vendored (MIT) so the tests run from a bare clone: the
 * files of slackapi/manifest-schema v0.5.0, still its newest schema (the commits after it, to
 * 2026-07-21, change only its CI). Its type enum still lacks some step parameter types Slack
 * documents ({@link withDocumentedTypesAsString}).
 */
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

/**
 * The manifest with each step parameter of a type Slack documents but the vendored schema's
 * enum lacks ({@link TYPES_MISSING_FROM_SCHEMA}: `slack#/types/file_id`…) read as a string:
 * what the schema can then check whole, as the fake Slack forgives only those types.
 */
export function withDocumentedTypesAsString(
  manifest: Record<string, unknown>,
): Record<string, unknown> {
  const functions = (manifest.functions ?? {}) as Record<string, Record<string, unknown>>;
  const side = (params: { properties: Record<string, { type: string }> }) => ({
    ...params,
    properties: Object.fromEntries(
      Object.entries(params.properties).map(([name, p]) => [
        name,
        TYPES_MISSING_FROM_SCHEMA.includes(p.type) ? { ...p, type: "string" } : p,
      ]),
    ),
  });
  const read = (f: Record<string, unknown>, key: string) =>
    side(f[key] as { properties: Record<string, { type: string }> });
  return {
    ...manifest,
    functions: Object.fromEntries(
      Object.entries(functions).map(([id, f]) => [
        id,
        {
          ...f,
          input_parameters: read(f, "input_parameters"),
          output_parameters: read(f, "output_parameters"),
        },
      ]),
    ),
  };
}
