import type { IncomingMessage } from "node:http";
import { z } from "zod";
import { SlackApiError } from "./slack-api-error.ts";

/**
 * Fields that arrive as JSON text in a form body (the SDK `JSON.stringify`s every object or
 * array argument). They are decoded up front so handlers and `fake.calls` see structures.
 */
const JSON_FIELDS = new Set([
  "blocks",
  "attachments",
  "metadata",
  "view",
  "files",
  "unfurls",
  "user_auth_blocks",
  // functions.completeSuccess: the SDK sends `outputs` as JSON text in a form.
  "outputs",
]);

/** Largest Web API body accepted; Slack's own limits are far below this. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Parsed arguments of one Web API request, and the token it carried. */
export interface ApiRequest {
  args: Record<string, unknown>;
  /** From `Authorization: Bearer …`, else the `token` argument. */
  token?: string;
}

/**
 * Reads a Web API request the ways Slack accepts one: query string, form-encoded or JSON
 * body. Throws `invalid_json` / `invalid_form_data` like Slack for bodies it cannot read.
 */
export async function readApiRequest(req: IncomingMessage, url: URL): Promise<ApiRequest> {
  const args: Record<string, unknown> = Object.fromEntries(url.searchParams);
  const raw = await readBody(req);
  const type = (req.headers["content-type"] ?? "").toLowerCase();
  if (raw.length > 0 && type.startsWith("application/json")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new SlackApiError("invalid_json");
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new SlackApiError("json_not_object");
    }
    Object.assign(args, parsed);
  } else if (raw.length > 0) {
    // Slack reads form bodies whatever the declared type; so does the fake.
    Object.assign(args, Object.fromEntries(new URLSearchParams(raw)));
  }
  for (const key of Object.keys(args)) {
    const value = args[key];
    if (JSON_FIELDS.has(key) && typeof value === "string") args[key] = decodeJson(value);
  }
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
  const token = bearer ?? (typeof args.token === "string" ? args.token : undefined);
  return token === undefined ? { args } : { args, token };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new SlackApiError("request_too_large");
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function decodeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // left as text: the method's schema then refuses it
  }
}

/** A boolean argument: Slack takes `true`/`1` (and JSON booleans). */
export const boolArg = z.preprocess(
  (v) => v === true || v === "true" || v === "1" || v === 1,
  z.boolean(),
);

/** An integer argument sent as text in forms. */
export const intArg = z.coerce.number().int();

/** A non-empty string argument. */
export const idArg = z.string().min(1);

/** A JSON object argument (already decoded by `readApiRequest`). */
export const objectArg = z.record(z.string(), z.unknown());

/**
 * Validates `args` with `schema`, turning a failure into Slack's `invalid_arguments` with
 * the offending paths in `response_metadata.messages`.
 */
export function parseArgs<T extends z.ZodType>(
  schema: T,
  args: Record<string, unknown>,
): z.infer<T> {
  const result = schema.safeParse(args);
  if (result.success) return result.data;
  const messages = result.error.issues.map(
    (issue) => `${issue.message} [json-pointer:/${issue.path.join("/")}]`,
  );
  throw new SlackApiError("invalid_arguments", ...messages);
}
