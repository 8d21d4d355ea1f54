import type { WebClient } from "@slack/web-api";
import { pino } from "pino";
import { describe, expect, it, vi } from "vitest";
import { type JobIn, SlackPortError } from "../../../src/jobs/index.ts";
import { inline } from "../../../src/jobs/model/stored.ts";
import { WorkflowGateway } from "../../../src/slack/gateway/workflow-gateway.ts";
import { METADATA_EVENT_TYPE } from "../../../src/slack/ids.ts";
import { platformError } from "../../../support/helpers/fake-web-client.ts";
import { origin, source } from "../../../support/helpers/jobs-kit.ts";

const common = {
  id: "job-1",
  createdAt: 1,
  updatedAt: 1,
  stageStartedAt: 1,
  attempts: 0,
  origin: origin({ kind: "workflow", executionId: "Fx0RUN1", threadTs: "100.000" }),
  source: source({ filename: "weekly.m4a" }),
  options: {},
};
const note = { dialog: inline([]), speakers: [], quotes: inline({}), speakerMap: [] };
const done: JobIn<"done"> = {
  ...common,
  stage: "done",
  note,
  markdown: inline("# Notes"),
  postedParts: 2,
  delivery: 1,
  docxFileId: "F0DOCX",
  canvas: { id: "F0CANVAS", delivery: 1 },
  finishedAt: 2,
};

/** The note's parts in the thread, as `conversations.replies` lists them with metadata. */
const part = (ts: string, index: number, delivery = 1) => ({
  ts,
  metadata: {
    event_type: METADATA_EVENT_TYPE,
    event_payload: { job_id: "job-1", kind: "note_part", part: index, delivery },
  },
});

function client(thread: Record<string, unknown>[] = []) {
  const calls = {
    completeSuccess: vi.fn(async (_args: Record<string, unknown>) => ({ ok: true })),
    completeError: vi.fn(async (_args: Record<string, unknown>) => ({ ok: true })),
    getPermalink: vi.fn(async (args: { channel: string; message_ts: string }) => ({
      ok: true,
      permalink: `https://team.slack.test/archives/${args.channel}/p${args.message_ts.replace(".", "")}`,
    })),
  };
  const web = {
    functions: { completeSuccess: calls.completeSuccess, completeError: calls.completeError },
    chat: { getPermalink: calls.getPermalink },
    async *paginate() {
      yield { messages: [{ ts: "100.000" }, ...thread] };
    },
  } as unknown as WebClient;
  const gateway = new WorkflowGateway({ clientFor: () => web, logger: pino({ level: "silent" }) });
  return { gateway, calls };
}

describe("WorkflowGateway", () => {
  it("completes a delivered job's step with the link to its first part, its canvas and DOCX", async () => {
    const { gateway, calls } = client([part("100.300", 1), part("100.200", 0), part("99.1", 0, 2)]);
    expect(await gateway.succeed(done)).toBe("completed");
    expect(calls.completeSuccess).toHaveBeenCalledWith({
      function_execution_id: "Fx0RUN1",
      outputs: {
        note_link: "https://team.slack.test/archives/C1/p100200",
        canvas: "F0CANVAS",
        docx: "F0DOCX",
      },
    });
  });

  it("links the thread when its parts cannot be found, and leaves out what the job has not", async () => {
    const { gateway, calls } = client();
    const { canvas: _c, docxFileId: _d, ...bare } = done;
    expect(await gateway.succeed(bare)).toBe("completed");
    expect(calls.completeSuccess.mock.calls[0]?.[0]).toEqual({
      function_execution_id: "Fx0RUN1",
      outputs: { note_link: "https://team.slack.test/archives/C1/p100000" },
    });
  });

  it("fails the step with the thread's sentence, in the person's language", async () => {
    const { gateway, calls } = client();
    const { note: _n, markdown: _m, postedParts: _p, delivery: _v, ...rest } = done;
    const failed: JobIn<"failed"> = {
      ...rest,
      stage: "failed",
      failedStage: "transcribing",
      failure: { code: "task_failed", detail: "The audio track is corrupt." },
      retryable: true,
      resume: { ...common, stage: "queued" },
    };
    await gateway.fail(failed);
    await gateway.fail({
      ...rest,
      stage: "canceled",
      canceledStage: "naming",
      canceledBy: "U0BOB",
    });
    await gateway.fail({ ...failed, origin: { ...failed.origin, locale: "vi-VN" } });
    expect(calls.completeError.mock.calls.map((c) => c[0])).toEqual([
      {
        function_execution_id: "Fx0RUN1",
        error: "The Note Service could not process it: The audio track is corrupt.",
      },
      { function_execution_id: "Fx0RUN1", error: "Canceled by <@U0BOB>." },
      {
        function_execution_id: "Fx0RUN1",
        error: expect.stringContaining("The audio track is corrupt."),
      },
    ]);
    expect(calls.completeError.mock.calls[2]?.[0].error).not.toMatch(/^The Note Service/);
  });

  it("takes a completion Slack already has for done, gives up on a run Slack does not know, and throws what may clear", async () => {
    const { gateway, calls } = client();
    calls.completeSuccess.mockRejectedValueOnce(platformError("execution_not_in_running_state"));
    expect(await gateway.succeed(done)).toBe("already");
    calls.completeSuccess.mockRejectedValueOnce(platformError("function_execution_not_found"));
    expect(await gateway.succeed(done)).toBe("refused");
    calls.completeSuccess.mockRejectedValueOnce(platformError("ratelimited"));
    const thrown = await gateway.succeed(done).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(SlackPortError);
    expect((thrown as SlackPortError).transient).toBe(true);
  });

  it("fails the step in one sentence when Slack gives no link to the notes", async () => {
    const { gateway, calls } = client([part("100.200", 0)]);
    calls.getPermalink.mockRejectedValueOnce(platformError("channel_not_found"));
    expect(await gateway.succeed(done)).toBe("completed");
    expect(calls.completeSuccess).not.toHaveBeenCalled();
    expect(calls.completeError.mock.calls[0]?.[0]).toEqual({
      function_execution_id: "Fx0RUN1",
      error: "The notes were posted, but Slack gave me no link to them.",
    });
  });
});
