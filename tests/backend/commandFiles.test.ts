import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { COMMANDS_MODULE, commandsModuleSource, writeCommandsModule } from "../../tools/commandsModule";

const root = path.resolve(import.meta.dirname, "..", "..");

describe("the generated global-commands module", () => {
  test("is up to date with commands/*.md (run `npm run codegen` after editing them)", () => {
    expect(readFileSync(path.join(root, COMMANDS_MODULE), "utf8")).toBe(commandsModuleSource(root));
  });

  test("holds each file's raw text, sorted, and is rewritten only on change", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "maestro-commands-"));
    try {
      mkdirSync(path.join(dir, "commands"));
      mkdirSync(path.join(dir, "convex", "lib"), { recursive: true });
      writeFileSync(path.join(dir, "commands", "b.md"), '---\ndescription: "B"\n---\nBody with `quotes` and ${x}\n');
      writeFileSync(path.join(dir, "commands", "a.md"), "not even frontmatter");
      writeFileSync(path.join(dir, "commands", "notes.txt"), "ignored");
      expect(writeCommandsModule(dir)).toBe(true);
      expect(writeCommandsModule(dir)).toBe(false);
      const source = readFileSync(path.join(dir, COMMANDS_MODULE), "utf8");
      expect(source.indexOf("commands/a.md")).toBeLessThan(source.indexOf("commands/b.md"));
      expect(source).not.toContain("notes.txt");
      expect(source).toContain(JSON.stringify('---\ndescription: "B"\n---\nBody with `quotes` and ${x}\n'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
