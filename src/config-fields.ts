import { z } from "zod";

/** The kinds of variable the configuration reads, each with its one way to be read. */

/** An unset variable and an empty one mean the same thing: `FOO=` in a `.env` file is "not set". */
export const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === "" ? undefined : value))
  .optional();

const requiredText = (hint: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `is missing: ${hint}` : undefined) })
    .trim()
    .min(1, { error: `is empty: ${hint}` });

/** A whole number in min..max, or `fallback` when unset. */
export const integer = <T extends number | undefined>(
  fallback: T,
  min: number,
  max: number,
  hint: string,
) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value, ctx): number | T => {
      if (value === undefined || value === "") return fallback;
      const parsed = Number(value);
      if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
        ctx.addIssue({
          code: "custom",
          message: `must be a whole number from ${min} to ${max}: ${hint}`,
        });
        return z.NEVER;
      }
      return parsed;
    });

/** A number (fractions allowed) in min..max, or `fallback` when unset. */
export const decimal = (fallback: number, min: number, max: number, hint: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value, ctx): number => {
      if (value === undefined || value === "") return fallback;
      const parsed = Number(value);
      if (!Number.isFinite(parsed) || parsed < min || parsed > max) {
        ctx.addIssue({
          code: "custom",
          message: `must be a number from ${min} to ${max}: ${hint}`,
        });
        return z.NEVER;
      }
      return parsed;
    });

/**
 * A value copied from `.env.example` without filling it in (`xoxb-your-bot-token`,
 * `your-api-key`): it would pass every other check and fail only once Slack or the Note
 * Service refuses it, far from the line that needs changing.
 */
function isPlaceholder(value: string): boolean {
  return /your[-_]/i.test(value);
}

/**
 * A host reserved for documentation (RFC 2606: example.com, .net, .org and their
 * subdomains), as in `.env.example`'s `https://notes.example.com/…`: no service runs there.
 */
export function isExampleHost(url: string): boolean {
  if (!URL.canParse(url)) return false;
  return /(^|\.)example\.(com|net|org)$/i.test(new URL(url).hostname);
}

export const PLACEHOLDER = "is still the placeholder from .env.example";

/** A required secret that must not be `.env.example`'s placeholder. */
export const requiredSecret = (hint: string) =>
  requiredText(hint).refine((value) => !isPlaceholder(value), {
    error: `${PLACEHOLDER}: ${hint}`,
  });

/**
 * An optional secret that must not be `.env.example`'s placeholder either (its further
 * checks are not run on a placeholder: one line says what to do).
 */
export const optionalSecret = (hint: string) =>
  optionalText.refine((value) => value === undefined || !isPlaceholder(value), {
    error: `${PLACEHOLDER}: ${hint}`,
    abort: true,
  });

export const httpUrl = (hint: string) =>
  requiredText(hint).refine(
    (value) => {
      try {
        const url = new URL(value);
        return url.protocol === "http:" || url.protocol === "https:";
      } catch {
        return false;
      }
    },
    { error: `must be an http(s) URL: ${hint}` },
  );

/** A comma-separated list of host names (no scheme, port, path or wildcard), lower-cased. */
export const hostList = (hint: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      const hosts = (value ?? "")
        .split(",")
        .map((host) => host.trim().toLowerCase())
        .filter((host) => host !== "");
      const bad = hosts.filter((host) => !isHostName(host));
      if (bad.length > 0) {
        ctx.addIssue({
          code: "custom",
          message: `must be host names separated by commas, without scheme, port, path or wildcard (not ${bad.join(", ")}): ${hint}`,
        });
        return z.NEVER;
      }
      return hosts;
    });

function isHostName(host: string): boolean {
  return (
    !host.includes("*") &&
    URL.canParse(`http://${host}/`) &&
    new URL(`http://${host}/`).hostname === host
  );
}
