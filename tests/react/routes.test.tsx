import { describe, expect, it } from "vitest";
import {
  agentPath,
  agentSlugOf,
  departmentPath,
  taskIdFromHash,
  taskPath,
} from "../../src/shell/routes";
import { closeTask, openTask, setTaskNavigator } from "../../src/task/taskHash";
import type { Id } from "../../convex/_generated/dataModel";
import { isAppRoute } from "../../tools/vite-guard";

describe("addresses", () => {
  it("builds department, task and agent paths, escaping what needs it", () => {
    expect(departmentPath("product")).toBe("/d/product");
    expect(taskPath("product", "abc")).toBe("/d/product/tasks/abc");
    expect(agentPath("product", "dev-bot")).toBe("/d/product/agents/dev-bot");
    expect(taskPath("a b", "x/y")).toBe("/d/a%20b/tasks/x%2Fy");
  });

  it("takes an agent's slug from its session key", () => {
    expect(agentSlugOf("agent:dev-bot:product")).toBe("dev-bot");
    expect(agentSlugOf("weird")).toBe("weird");
  });

  it("still reads old #task=<id> links", () => {
    expect(taskIdFromHash("#task=abc123")).toBe("abc123");
    expect(taskIdFromHash("#task=abc%20d&x=1")).toBe("abc d");
    expect(taskIdFromHash("#task=")).toBeNull();
    expect(taskIdFromHash("#other")).toBeNull();
    expect(taskIdFromHash("#task=%E0%A4%A")).toBeNull();
  });

  it("the dev server gives the page to the app's addresses only", () => {
    expect(isAppRoute("/d/product")).toBe(true);
    expect(isAppRoute("/d/product/tasks/abc?x=1")).toBe(true);
    for (const path of ["/d/product/channels", "/d/product/channels/c1", "/d/product/runs", "/d/product/runs/r1"]) expect(isAppRoute(path)).toBe(true);
    for (const path of ["/d/product/channels/c1/x", "/d/product/secrets", "/d/product/runs/.env"]) expect(isAppRoute(path)).toBe(false);
    expect(isAppRoute("/d/product/agents/jarvis")).toBe(true);
    expect(isAppRoute("/d/../package.json")).toBe(false);
    expect(isAppRoute("/no-such-page")).toBe(false);
  });
});

describe("opening tasks from outside the router", () => {
  it("goes through the registered navigator, and does nothing without one", () => {
    const calls: string[] = [];
    const undo = setTaskNavigator({ open: (id) => calls.push(`open ${id}`), close: () => calls.push("close") });
    openTask("t1" as Id<"tasks">);
    closeTask();
    undo();
    openTask("t2" as Id<"tasks">);
    expect(calls).toEqual(["open t1", "close"]);
  });

  it("an old navigator's undo leaves a newer one in place", () => {
    const calls: string[] = [];
    const undoOld = setTaskNavigator({ open: () => calls.push("old"), close: () => {} });
    const undoNew = setTaskNavigator({ open: () => calls.push("new"), close: () => {} });
    undoOld();
    openTask("t" as Id<"tasks">);
    undoNew();
    expect(calls).toEqual(["new"]);
  });
});
