import { mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A temp folder for one test file; `cleanup` removes it and all it holds. */
export async function makeTempDir(prefix = "meeting-notes-test-") {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return {
    dir,
    /** Writes a small file with the given content. */
    async file(name: string, content: string | Uint8Array = "fake audio bytes") {
      const path = join(dir, name);
      await writeFile(path, content);
      return path;
    },
    /** Creates a sparse file of exactly `bytes` bytes without writing them. */
    async sparse(name: string, bytes: number) {
      const path = join(dir, name);
      await writeFile(path, "");
      await truncate(path, bytes);
      return path;
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
