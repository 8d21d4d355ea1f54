import { readFileSync } from "node:fs";
import { Ajv, type ErrorObject } from "ajv";
import { z } from "zod";

/** One input or output parameter of a custom step, as the manifest declares it. */
export interface FunctionParameter {
  name: string;
  type: string;
  title?: string;
  description?: string;
  required: boolean;
}

/** A custom step (function) the app offers Workflow Builder. */
export interface FunctionDefinition {
  callbackId: string;
  title: string;
  description: string;
  inputs: readonly FunctionParameter[];
  outputs: readonly FunctionParameter[];
}

const SCHEMA_2 = new URL(
  "../../test/fixtures/slack-manifest-schema/schemas/manifest.schema.2.0.0.json",
  import.meta.url,
);

/**
 * Types Slack has for function parameters that its published manifest schema (v0.5.0, still
 * the newest) does not list in its enum: the Slack types of the Deno SDK
 * (slackapi/deno-slack-sdk src/schema/slack/types/mod.ts, `SlackPrimitiveTypes`; documented
 * at https://docs.slack.dev/tools/deno-slack-sdk/reference/slack-types) less those the enum
 * has. Only an enum error on a parameter's `type` naming one of these is forgiven.
 */
export const TYPES_MISSING_FROM_SCHEMA: readonly string[] = [
  "slack#/types/canvas_id",
  "slack#/types/canvas_template_id",
  "slack#/types/expanded_rich_text",
  "slack#/types/file_id",
  "slack#/types/salesforce_record_id",
  "slack#/types/team_id",
];

let validate: ReturnType<Ajv["compile"]> | undefined;

/** The schema of the manifest's `functions` section, from Slack's published schema. */
function functionsValidator(): ReturnType<Ajv["compile"]> {
  if (validate !== undefined) return validate;
  const schema = JSON.parse(readFileSync(SCHEMA_2, "utf8")) as {
    definitions: Record<string, unknown>;
  };
  const ajv = new Ajv({ strict: false, allErrors: true });
  validate = ajv.compile({
    definitions: schema.definitions,
    $ref: "#/definitions/app-manifests.v2.hermes.functions",
  });
  return validate;
}

const parameterSchema = z.object({
  type: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
});
const parametersSchema = z.object({
  properties: z.record(z.string(), parameterSchema),
  required: z.array(z.string()).optional(),
});
const functionsSchema = z.record(
  z.string(),
  z.object({
    title: z.string(),
    description: z.string(),
    input_parameters: parametersSchema,
    output_parameters: parametersSchema,
  }),
);

/**
 * The manifest's `functions` (https://docs.slack.dev/reference/app-manifest, "functions":
 * `callback_id` → `title`, `description`, `input_parameters` and `output_parameters`, each
 * `{properties: {name: {type, title, description}}, required: [names]}`), checked against
 * Slack's manifest schema (test/fixtures/slack-manifest-schema); a manifest Slack would
 * refuse fails loudly.
 */
export function readFunctions(section: unknown): ReadonlyMap<string, FunctionDefinition> {
  if (section === undefined) return new Map();
  const check = functionsValidator();
  if (!check(section)) {
    const errors = (check.errors ?? []).filter((e) => !forgiven(e, section));
    if (errors.length > 0) {
      const detail = errors.map((e) => `${e.instancePath} ${e.message ?? ""}`).join("; ");
      throw new Error(`fake Slack: the manifest's functions break Slack's schema: ${detail}`);
    }
  }
  const functions = functionsSchema.parse(section);
  for (const [callbackId, f] of Object.entries(functions)) {
    for (const side of [f.input_parameters, f.output_parameters]) {
      for (const name of side.required ?? []) {
        if (side.properties[name] === undefined) {
          throw new Error(`fake Slack: function ${callbackId} requires undeclared ${name}`);
        }
      }
    }
  }
  return new Map(
    Object.entries(functions).map(([callbackId, f]) => [
      callbackId,
      {
        callbackId,
        title: f.title,
        description: f.description,
        inputs: parameters(f.input_parameters),
        outputs: parameters(f.output_parameters),
      },
    ]),
  );
}

function parameters(side: z.infer<typeof parametersSchema>): FunctionParameter[] {
  const required = new Set(side.required ?? []);
  return Object.entries(side.properties).map(([name, p]) => ({
    name,
    type: p.type,
    ...(p.title !== undefined ? { title: p.title } : {}),
    ...(p.description !== undefined ? { description: p.description } : {}),
    required: required.has(name),
  }));
}

/** An enum error on a parameter's `type` whose value Slack documents (see above). */
function forgiven(error: ErrorObject, section: unknown): boolean {
  if (error.keyword !== "enum" || !error.instancePath.endsWith("/type")) return false;
  const value = error.instancePath
    .split("/")
    .slice(1)
    .reduce<unknown>(
      (node, key) =>
        typeof node === "object" && node !== null
          ? (node as Record<string, unknown>)[key.replace(/~1/g, "/").replace(/~0/g, "~")]
          : undefined,
      section,
    );
  return typeof value === "string" && TYPES_MISSING_FROM_SCHEMA.includes(value);
}
