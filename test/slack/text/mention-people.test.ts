import { describe, expect, it } from "vitest";
import { neutralizeOtherMentions } from "../../../src/slack/text/mention-people.ts";
import { noteText } from "../../../src/slack/text/split-note.ts";

describe("names as mentions", () => {
  it("turns whole-word names into mentions, the longest name first", () => {
    const people = [
      { name: "Anna", userId: "U0ANNA001" },
      { name: "Anna Lee", userId: "U0ANNALEE" },
    ];
    expect(noteText("- **Anna Lee**: ask Anna; Annabel stays", people)).toBe(
      "- **<@U0ANNALEE>**: ask <@U0ANNA001>; Annabel stays",
    );
  });

  it("mentions no one for an id that is not a Slack user's, or a one-letter name", () => {
    const text = "Bob and B met.";
    expect(noteText(text, [{ name: "Bob", userId: "<!channel>" }])).toBe(text);
    expect(noteText(text, [{ name: "B", userId: "U0B000001" }])).toBe(text);
  });

  it("takes names with characters a regular expression would read as its own", () => {
    const people = [{ name: "J. (Jay) Doe+", userId: "W0JAY0001" }];
    expect(noteText("Owner: J. (Jay) Doe+.", people)).toBe("Owner: <@W0JAY0001>.");
  });

  it("leaves a name that is part of an e-mail handle alone", () => {
    expect(noteText("write to @Bob", [{ name: "Bob", userId: "U0BOB0001" }])).toBe("write to @Bob");
  });
});

describe("neutralizeOtherMentions", () => {
  const bob = [{ name: "Bob", userId: "U0BOB0001" }];

  it("keeps the plain mentions of the people live and makes everything else inert", () => {
    const text = "<@U0BOB0001> asks <@U0ALICE01>, <@U0BOB0001|bob> and <!here>; @channel";
    expect(neutralizeOtherMentions(text, bob)).toBe(
      "<@U0BOB0001> asks ‹@U0ALICE01›, ‹@U0BOB0001|bob› and ‹!here›; ＠channel",
    );
  });

  it("is neutralizeMentions when no one may be mentioned, and never longer", () => {
    const text = "&lt;@U0BOB0001&gt; <@U0BOB0001>";
    expect(neutralizeOtherMentions(text, [])).toBe("‹@U0BOB0001› ‹@U0BOB0001›");
    expect(neutralizeOtherMentions(text, bob).length).toBeLessThanOrEqual(text.length);
  });

  it("changes nothing in text already made safe with the people mentioned", () => {
    const safe = "‹!here› <@U0BOB0001> owns it, ＠everyone";
    expect(neutralizeOtherMentions(safe, bob)).toBe(safe);
  });
});
