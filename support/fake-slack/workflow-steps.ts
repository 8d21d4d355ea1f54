import { randomBytes } from "node:crypto";
import { z } from "zod";
import { idArg, objectArg, parseArgs } from "./api-args.ts";
import type { InstalledApp } from "./app-manifest.ts";
import type { FakeSlackStore } from "./fake-slack-store.ts";
import type { Tenancy, TokenRecord } from "./installations.ts";
import type { FunctionDefinition, FunctionParameter } from "./manifest-functions.ts";
import type { ApiMethod } from "./message-helpers.ts";
import { SlackApiError } from "./slack-api-error.ts";
import { nowTs } from "./slack-payloads.ts";

/** How a step ended: `functions.completeSuccess` with its outputs, or `completeError`. */
export type StepOutcome =
  | { status: "success"; outputs: Record<string, unknown> }
  | { status: "error"; error: string };

/** What a test asks Workflow Builder to run: the app's step, its inputs, in which workspace. */
export interface RunWorkflowStepInput {
  callbackId: string;
  inputs: Record<string, unknown>;
  /** The workspace running the workflow; default the first. */
  team?: string;
  /** Who started the workflow; default `U0FAKEUSER` (not in the event: Slack sends none). */
  user?: string;
}

/** One run of the app's step, as a test follows it. */
export interface FakeStepExecution {
  executionId: string;
  workflowExecutionId: string;
  callbackId: string;
  teamId: string;
  /** The `bot_access_token` of the event: valid 15 minutes, or until the step completes. */
  botAccessToken: string;
  /** The `function_executed` event delivered. */
  event: Record<string, unknown>;
  state: "running" | "completed" | "failed";
  /** Resolves when the app completes the step (success or error). */
  outcome: Promise<StepOutcome>;
}

interface Running extends FakeStepExecution {
  token: TokenRecord;
  definition: FunctionDefinition;
  resolve: (outcome: StepOutcome) => void;
}

/**
 * How long an execution's `bot_access_token` lives: the tokens "either expire 15 mins after
 * being issued OR are revoked when the step is completed" (a Slack maintainer, having asked
 * internally: https://github.com/slackapi/bolt-python/issues/1075).
 */
export const EXECUTION_TOKEN_MS = 15 * 60_000;

/**
 * Workflow Builder running the app's custom steps (the manifest's `functions`): the
 * `function_executed` event (https://docs.slack.dev/reference/events/function_executed,
 * kept in test/fixtures/slack-payloads/event-function_executed.json) with a
 * `bot_access_token` ({@link EXECUTION_TOKEN_MS}), and `functions.completeSuccess` /
 * `functions.completeError` (https://docs.slack.dev/reference/methods/functions.completeSuccess,
 * …/functions.completeError) that end it.
 *
 * Which token completes a step: the methods' pages list bot and user tokens, no scope; Slack's
 * SDKs complete with the event's `bot_access_token` (bolt-js src/App.ts: `selectToken` gives
 * the function's token to `complete` and `fail` while `attachFunctionToken` is on, its
 * default; bolt-python likewise). No page says another token of the app may complete a run,
 * so the fake takes the execution's own token only, while it lives.
 *
 * How long an execution may run: Slack documents no limit for a step the app runs (`remote`);
 * the documented end is completion, after which any completion is refused with
 * `execution_not_in_running_state` ("The function execution is no longer in a state to be
 * completed", completeSuccess's page). So a run stays running here until completed.
 */
export class WorkflowSteps {
  readonly executions = new Map<string, Running>();
  readonly #tenancy: Tenancy;
  readonly #installed: InstalledApp;
  readonly #appId: string;
  readonly #deliver: (store: FakeSlackStore, event: Record<string, unknown>) => void;
  readonly #functionIds = new Map<string, string>();
  readonly #now: () => number;

  constructor(options: {
    tenancy: Tenancy;
    /** The fake's clock (its `now` knob): the step's token expires by it. */
    now: () => number;
    installed: InstalledApp;
    appId: string;
    /** Sends the event to the installation of the store's workspace. */
    deliver: (store: FakeSlackStore, event: Record<string, unknown>) => void;
  }) {
    this.#tenancy = options.tenancy;
    this.#installed = options.installed;
    this.#appId = options.appId;
    this.#deliver = options.deliver;
    this.#now = options.now;
  }

  /**
   * Runs the step as Workflow Builder would: only a step the manifest declares, in a
   * workspace where the app is installed, with every required input, each of its declared
   * type — a `slack#/types/file_id` a file of that workspace, a `slack#/types/channel_id` one
   * of its conversations (Workflow Builder's pickers offer nothing else). Anything else
   * throws: Slack would never send it. On Enterprise Grid the step is offered only by an
   * org-wide install: "While it is possible to install the app at a workspace level, doing so
   * means that the custom steps will not appear in Workflow Builder"
   * (https://docs.slack.dev/tools/bolt-js/tutorials/custom-steps, "Opt in to org-ready apps").
   */
  run(input: RunWorkflowStepInput): FakeStepExecution {
    const definition = this.#installed.functions.get(input.callbackId);
    if (definition === undefined) {
      throw new Error(`fake Slack: the app's manifest declares no function ${input.callbackId}`);
    }
    const store =
      input.team === undefined
        ? [...this.#tenancy.teams.values()][0]
        : this.#tenancy.teams.get(input.team);
    if (store === undefined) throw new Error(`fake Slack: no workspace ${input.team}`);
    const installation = this.#tenancy.installationFor(store.workspace.teamId);
    if (installation === undefined) {
      throw new Error(`fake Slack: the app is not installed in ${store.workspace.teamId}`);
    }
    if (store.workspace.enterpriseId !== undefined && !installation.isEnterpriseInstall) {
      throw new Error(
        `fake Slack: ${store.workspace.teamId} is on Enterprise Grid and has a workspace install: its steps do not appear in Workflow Builder`,
      );
    }
    for (const p of definition.inputs) {
      const value = input.inputs[p.name];
      if (value === undefined) {
        if (p.required) throw new Error(`fake Slack: required input ${p.name} missing`);
        continue;
      }
      const problem = typeProblem(p, value) ?? referenceProblem(p, value, store);
      if (problem !== undefined) throw new Error(`fake Slack: input ${problem}`);
    }
    for (const name of Object.keys(input.inputs)) {
      if (!definition.inputs.some((p) => p.name === name)) {
        throw new Error(`fake Slack: function ${input.callbackId} declares no input ${name}`);
      }
    }
    const executionId = slackId("Fx");
    const token = this.#tenancy.issue(
      installation,
      "workflow",
      undefined,
      `xwfp-${randomBytes(16).toString("hex")}`,
    );
    token.executionId = executionId;
    token.teamId = store.workspace.teamId;
    token.expiresAt = this.#now() + EXECUTION_TOKEN_MS;
    const event = this.#event(definition, input.inputs, executionId, token.token);
    let resolve: (outcome: StepOutcome) => void = () => {};
    const outcome = new Promise<StepOutcome>((r) => {
      resolve = r;
    });
    const running: Running = {
      executionId,
      workflowExecutionId: event.workflow_execution_id as string,
      callbackId: input.callbackId,
      teamId: store.workspace.teamId,
      botAccessToken: token.token,
      event,
      state: "running",
      outcome,
      token,
      definition,
      resolve,
    };
    this.executions.set(executionId, running);
    this.#deliver(store, event);
    return running;
  }

  /** The event, in the shape of the published example. */
  #event(
    definition: FunctionDefinition,
    inputs: Record<string, unknown>,
    executionId: string,
    token: string,
  ): Record<string, unknown> {
    let functionId = this.#functionIds.get(definition.callbackId);
    if (functionId === undefined) {
      functionId = slackId("Fn");
      this.#functionIds.set(definition.callbackId, functionId);
    }
    const created = Math.floor(Date.now() / 1000);
    return {
      type: "function_executed",
      function: {
        id: functionId,
        callback_id: definition.callbackId,
        title: definition.title,
        description: definition.description,
        type: "app",
        input_parameters: definition.inputs.map(parameterOut),
        output_parameters: definition.outputs.map(parameterOut),
        app_id: this.#appId,
        date_created: created,
        date_updated: created,
        date_deleted: 0,
      },
      inputs,
      function_execution_id: executionId,
      workflow_execution_id: slackId("Wx"),
      event_ts: nowTs(),
      bot_access_token: token,
    };
  }

  /**
   * A running execution the caller may complete, or Slack's error. The caller's token was
   * checked already: an expired execution token answered `token_expired`, a completed one's
   * `invalid_auth`. Any other token of the app is refused as an actor without access ("This
   * actor does not have access to this function execution", completeError's page): see the
   * class comment for why.
   */
  #running(args: Record<string, unknown>, caller: TokenRecord | undefined): Running {
    const id = args.function_execution_id;
    const execution = typeof id === "string" ? this.executions.get(id) : undefined;
    if (execution === undefined) throw new SlackApiError("function_execution_not_found");
    if (execution.state !== "running") throw new SlackApiError("execution_not_in_running_state");
    if (caller !== execution.token) throw new SlackApiError("access_denied");
    return execution;
  }

  #finish(execution: Running, outcome: StepOutcome): void {
    execution.state = outcome.status === "success" ? "completed" : "failed";
    // The step's token dies with the step.
    execution.token.revoked = true;
    execution.resolve(outcome);
  }

  /** `functions.completeSuccess` and `functions.completeError`. */
  readonly methods: Readonly<Record<string, ApiMethod>> = {
    "functions.completeSuccess": (args, _store, caller) => {
      const execution = this.#running(args, caller?.record);
      const a = parseArgs(z.object({ function_execution_id: idArg, outputs: objectArg }), args);
      const problems = outputProblems(execution.definition.outputs, a.outputs);
      if (problems.length > 0) {
        throw new SlackApiError("parameter_validation_failed", ...problems);
      }
      this.#finish(execution, { status: "success", outputs: a.outputs });
      return {};
    },
    "functions.completeError": (args, _store, caller) => {
      const execution = this.#running(args, caller?.record);
      const a = parseArgs(
        z.object({ function_execution_id: idArg, error: z.string().min(1) }),
        args,
      );
      this.#finish(execution, { status: "error", error: a.error });
      return {};
    },
  };
}

function parameterOut(p: FunctionParameter): Record<string, unknown> {
  return {
    type: p.type,
    name: p.name,
    ...(p.description !== undefined ? { description: p.description } : {}),
    ...(p.title !== undefined ? { title: p.title } : {}),
    is_required: p.required,
  };
}

/** Outputs against the declared output parameters: every required one, each of its type. */
function outputProblems(
  declared: readonly FunctionParameter[],
  outputs: Record<string, unknown>,
): string[] {
  const problems: string[] = [];
  for (const p of declared) {
    const value = outputs[p.name];
    if (value === undefined || value === null) {
      if (p.required) problems.push(`missing required output ${p.name}`);
      continue;
    }
    const problem = typeProblem(p, value);
    if (problem !== undefined) problems.push(problem);
  }
  return problems;
}

/**
 * Checks a value against its parameter's type, for the types whose values have a shape
 * (https://docs.slack.dev/tools/deno-slack-sdk/reference/slack-types); other types (blocks,
 * rich text, forms, user context…) are not checked.
 */
function typeProblem(p: FunctionParameter, value: unknown): string | undefined {
  const ok = TYPE_CHECKS[p.type]?.(value) ?? true;
  return ok ? undefined : `${p.name} is not of type ${p.type}`;
}

const id = (pattern: RegExp) => (v: unknown) => typeof v === "string" && pattern.test(v);

const TYPE_CHECKS: Readonly<Record<string, (value: unknown) => boolean>> = {
  string: (v) => typeof v === "string",
  integer: (v) => typeof v === "number" && Number.isInteger(v),
  number: (v) => typeof v === "number" && Number.isFinite(v),
  boolean: (v) => typeof v === "boolean",
  array: (v) => Array.isArray(v),
  object: (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  "slack#/types/user_id": id(/^[UW][A-Z0-9]{2,}$/),
  "slack#/types/channel_id": id(/^[CGD][A-Z0-9]{2,}$/),
  "slack#/types/usergroup_id": id(/^S[A-Z0-9]{2,}$/),
  "slack#/types/file_id": id(/^F[A-Z0-9]{2,}$/),
  "slack#/types/canvas_id": id(/^F[A-Z0-9]{2,}$/),
  "slack#/types/team_id": id(/^T[A-Z0-9]{2,}$/),
  "slack#/types/message_ts": id(/^\d+\.\d+$/),
  "slack#/types/timestamp": (v) => typeof v === "number" && Number.isInteger(v),
  "slack#/types/date": id(/^\d{4}-\d{2}-\d{2}$/),
};

/** A file or conversation input must name one of the workspace's. */
function referenceProblem(
  p: FunctionParameter,
  value: unknown,
  store: FakeSlackStore,
): string | undefined {
  if (typeof value !== "string") return undefined;
  if (p.type === "slack#/types/file_id" && !store.files.has(value)) {
    return `${p.name}: ${value} is no file of ${store.workspace.teamId}`;
  }
  if (p.type === "slack#/types/channel_id" && store.channel(value) === undefined) {
    return `${p.name}: ${value} is no conversation of ${store.workspace.teamId}`;
  }
  return undefined;
}

function slackId(prefix: string): string {
  return `${prefix}0${randomBytes(5).toString("hex").toUpperCase()}`;
}
