import { text } from "node:stream/consumers";
import { describe, expect, it } from "vitest";
import { buildForm, encodeMultipart, memoryFile } from "../../src/notetaker/multipart.ts";

describe("multipart bodies", () => {
  it("send every file part under a safe name, whoever built it", async () => {
    const form = buildForm({
      audio: memoryFile("bytes", "..%2F..\u202Eevil/3pm.m4a", "audio/mp4"),
      template: memoryFile("PK", "C:\\Users\\lan\\.mẫu.docx", "application/octet-stream"),
    });
    const body = await text(encodeMultipart(form).body);
    expect(body).toContain('name="audio"; filename="evil_3pm.m4a"');
    expect(body).toContain('name="template"; filename="C:_Users_lan_.mẫu.docx"');
    expect(body).not.toContain("\u202E");
    expect(body).not.toContain("../");
  });
});
