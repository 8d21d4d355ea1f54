import { describe, expect, it } from "vitest";
import { StatusPainter } from "../../../src/slack/gateway/status-painter.ts";

/** A draw that waits for the test to let it through, and remembers what it drew. */
function gatedDraw() {
  const drawn: { content: string; ts: string | undefined }[] = [];
  let release: (() => void) | undefined;
  let gate = Promise.resolve();
  const hold = () => {
    gate = new Promise((resolve) => {
      release = resolve;
    });
  };
  const draw = async (content: string, ts: string | undefined) => {
    await gate;
    drawn.push({ content, ts });
    return ts ?? "1700000000.000100";
  };
  return { draw, drawn, hold, release: () => release?.() };
}

describe("StatusPainter", () => {
  it("posts the first time, then draws only when what is shown changes", async () => {
    const { draw, drawn } = gatedDraw();
    const painter = new StatusPainter(draw);
    const ts = await painter.paint("job-1", undefined, "Transcribing… 10%", "urgent");
    expect(await painter.paint("job-1", ts, "Transcribing… 10%", "urgent")).toBe(ts);
    await painter.paint("job-1", ts, "Transcribing… 20%", "urgent");
    expect(drawn).toEqual([
      { content: "Transcribing… 10%", ts: undefined },
      { content: "Transcribing… 20%", ts },
    ]);
  });

  it("draws a few progress figures at once, skips the others, and never what someone waits for", async () => {
    // After a restart thousands of jobs poll at once: their figures must not all queue.
    const { draw, drawn, hold, release } = gatedDraw();
    const painter = new StatusPainter(draw, (content) => content, 4);
    hold();
    for (let i = 0; i < 10; i++) {
      expect(await painter.paint(`job-${i}`, `1.${i}`, "Transcribing… 40%", "progress")).toBe(
        `1.${i}`,
      );
    }
    const stage = painter.paint("job-9", "1.9", "Name the speakers", "urgent");
    release();
    await stage;
    expect(drawn.map((d) => d.ts)).toEqual(["1.0", "1.1", "1.2", "1.3", "1.9"]);
    // Room again: the next figure of a skipped job is drawn.
    await painter.paint("job-5", "1.5", "Transcribing… 50%", "urgent");
    expect(drawn.at(-1)).toEqual({ content: "Transcribing… 50%", ts: "1.5" });
  });

  it("draws the newest state last, skipping the ones that came while a draw waited", async () => {
    const { draw, drawn, hold, release } = gatedDraw();
    const painter = new StatusPainter(draw);
    const ts = await painter.paint("job-1", undefined, "queued", "urgent");
    hold();
    const first = painter.paint("job-1", ts, "10%", "urgent");
    // Progress figures while Slack's budget holds the first back: not waited for.
    expect(await painter.paint("job-1", ts, "20%", "progress")).toBe(ts);
    expect(await painter.paint("job-1", ts, "30%", "progress")).toBe(ts);
    const stage = painter.paint("job-1", ts, "Name the speakers", "urgent");
    release();
    await Promise.all([first, stage]);
    expect(drawn.map((d) => d.content)).toEqual(["queued", "10%", "Name the speakers"]);
  });

  it("draws urgently what someone waits for, even when a progress figure replaced it", async () => {
    const urgency: string[] = [];
    let release: () => void = () => {};
    let gate = Promise.resolve();
    const painter = new StatusPainter(async (_content: string, ts, priority) => {
      await gate;
      urgency.push(priority);
      return ts ?? "1.0";
    });
    await painter.paint("job-1", "1.0", "first", "urgent");
    gate = new Promise((resolve) => {
      release = resolve;
    });
    const drawing = painter.paint("job-1", "1.0", "10%", "progress");
    const prompt = painter.paint("job-1", "1.0", "Name the speakers", "urgent");
    void painter.paint("job-1", "1.0", "Name the speakers, 20%", "progress");
    release();
    await Promise.all([drawing, prompt]);
    expect(urgency).toEqual(["urgent", "progress", "urgent"]);
  });

  it("tells every waiting caller of a failed draw, and draws the next state again", async () => {
    let fail = true;
    const drawn: string[] = [];
    const painter = new StatusPainter(async (content: string, ts: string | undefined) => {
      if (fail) throw new Error("ratelimited");
      drawn.push(content);
      return ts ?? "1.2";
    });
    await expect(painter.paint("job-1", "1.2", "stage A", "urgent")).rejects.toThrow("ratelimited");
    fail = false;
    expect(await painter.paint("job-1", "1.2", "stage A", "urgent")).toBe("1.2");
    expect(drawn).toEqual(["stage A"]);
  });

  it("keeps the new message a draw posted (the old one was deleted) for later draws", async () => {
    const seen: (string | undefined)[] = [];
    const painter = new StatusPainter(async (_content: string, ts: string | undefined) => {
      seen.push(ts);
      return "2.0";
    });
    expect(await painter.paint("job-1", "1.0", "a", "urgent")).toBe("2.0");
    await painter.paint("job-1", "1.0", "b", "urgent");
    expect(seen).toEqual(["1.0", "2.0"]);
  });

  it("compares only what people see", async () => {
    const drawn: number[] = [];
    const painter = new StatusPainter(
      async (content: { text: string; at: number }, ts: string | undefined) => {
        drawn.push(content.at);
        return ts ?? "1.0";
      },
      (content) => content.text,
    );
    const ts = await painter.paint("job-1", undefined, { text: "same", at: 1 }, "urgent");
    await painter.paint("job-1", ts, { text: "same", at: 2 }, "urgent");
    expect(drawn).toEqual([1]);
  });

  it("draws after a late draw the newer state another process saved meanwhile", async () => {
    const { draw, drawn, hold, release } = gatedDraw();
    const painter = new StatusPainter(draw);
    // What the store holds: the job moved on elsewhere while this draw waited for budget.
    let stored = "Transcribing… 0%";
    const recheck = async (shown: string) => (stored === shown ? undefined : stored);
    hold();
    expect(await painter.paint("job-1", "1.0", "Transcribing… 0%", "progress", recheck)).toBe(
      "1.0",
    );
    stored = "Notes ready";
    release();
    await expect
      .poll(() => drawn.map((d) => d.content))
      .toEqual(["Transcribing… 0%", "Notes ready"]);
    // Nothing newer: no more draws.
    expect(await painter.paint("job-1", "1.0", "Notes ready", "urgent")).toBe("1.0");
    expect(drawn).toHaveLength(2);
  });

  it("draws nothing more when the late draw is still the newest state", async () => {
    const { draw, drawn } = gatedDraw();
    const painter = new StatusPainter(draw);
    let asked = 0;
    await painter.paint("job-1", "1.0", "10%", "urgent", async () => {
      asked += 1;
      return undefined;
    });
    expect(asked).toBe(1);
    expect(drawn.map((d) => d.content)).toEqual(["10%"]);
  });

  it("makes an older draw give way to a person's, and tells its callers how that one goes", async () => {
    const drawn: { content: string; priority: string }[] = [];
    let gaveWay = false;
    const painter = new StatusPainter(
      async (content: string, ts: string | undefined, priority, yieldSignal) => {
        if (content === "Name the speakers") {
          // Waits for Slack's budget until a newer state takes its place.
          await new Promise((_, reject) =>
            yieldSignal.addEventListener("abort", () => {
              gaveWay = true;
              reject(new Error("gave way"));
            }),
          );
        }
        drawn.push({ content, priority });
        return ts ?? "1.0";
      },
    );
    const prompt = painter.paint("job-1", "1.0", "Name the speakers", "urgent");
    const effect = painter.paint("job-1", "1.0", "Writing the notes…", "person");
    expect(await Promise.all([prompt, effect])).toEqual(["1.0", "1.0"]);
    expect(gaveWay).toBe(true);
    expect(drawn).toEqual([{ content: "Writing the notes…", priority: "person" }]);
  });

  it("lets a draw under way finish when the newer state is not a person's", async () => {
    const { draw, drawn, hold, release } = gatedDraw();
    const painter = new StatusPainter(draw);
    hold();
    const first = painter.paint("job-1", "1.0", "Name the speakers", "urgent");
    const second = painter.paint("job-1", "1.0", "Writing the notes…", "urgent");
    release();
    await Promise.all([first, second]);
    expect(drawn.map((d) => d.content)).toEqual(["Name the speakers", "Writing the notes…"]);
  });
});
