import path from "node:path";
import { expect, test } from "vitest";
import { checkConvexRuntime, usesNodeRuntime } from "../../tools/check-convex-runtime";
import { PROJECT_ROOT } from "./helpers";

test("the project's convex/ fits Convex's runtimes", async () => {
  expect(await checkConvexRuntime(path.join(PROJECT_ROOT, "convex"), PROJECT_ROOT)).toEqual([]);
});

test("a Node import outside \"use node\" and a mutation inside it are both reported", async () => {
  const problems = await checkConvexRuntime(path.join(PROJECT_ROOT, "tests/fixtures/bad-runtime/convex"), PROJECT_ROOT);
  expect(problems).toHaveLength(2);
  expect(problems[0]).toMatch(/^q\.ts: imports the Node built-in "node:fs"/);
  expect(problems[1]).toBe('nodeMut: "use node" files may hold actions only, but exports mutation "m".');
});

test("the \"use node\" directive is recognised after comments only", () => {
  expect(usesNodeRuntime('"use node";\nexport {}')).toBe(true);
  expect(usesNodeRuntime("// why\n'use node'\n")).toBe(true);
  expect(usesNodeRuntime('const a = "use node";')).toBe(false);
});
