import { describe, expect, test } from "vitest";
import { toolNameFromWire, WIRE_NAME_PATTERN, wireNameTable, wireToolName } from "../../convex/lib/toolNames";

describe("wire tool names", () => {
  test("dotted spec names go out with underscores, in the OpenAI API's pattern", () => {
    for (const name of ["chat.post", "chat.getNew", "inbox.read", "messages.fetch", "delegate_task"]) {
      expect(wireToolName(name)).toMatch(WIRE_NAME_PATTERN);
    }
    expect(wireToolName("chat.getNew")).toBe("chat_getNew");
    expect(wireToolName("delegate_task")).toBe("delegate_task");
  });

  test("a wire name and the spec name both map back; anything else is unknown", () => {
    const table = wireNameTable(["chat.post", "delegate_task"]);
    expect(toolNameFromWire(table, "chat_post")).toBe("chat.post");
    expect(toolNameFromWire(table, "chat.post")).toBe("chat.post");
    expect(toolNameFromWire(table, "delegate_task")).toBe("delegate_task");
    expect(toolNameFromWire(table, "chat-post")).toBeUndefined();
  });

  test("two tools that would share a wire name, or a name that cannot be sent, are refused", () => {
    expect(() => wireNameTable(["chat.post", "chat_post"])).toThrow(/share the wire name/);
    expect(() => wireNameTable(["x".repeat(65)])).toThrow(/no valid wire name/);
  });
});

describe("the registry's native functions", () => {
  test("every tool goes out under a valid wire name that maps back, with integer bounds left out of its schema", async () => {
    const { TOOL_REGISTRY, toolFunctions, toolNameOfWire } = await import("../../convex/tools/registry");
    const functions = toolFunctions(TOOL_REGISTRY.map((t) => ({ name: t.name })));
    expect(functions).toHaveLength(TOOL_REGISTRY.length);
    for (const [i, fn] of functions.entries()) {
      expect(fn.function.name).toMatch(WIRE_NAME_PATTERN);
      expect(toolNameOfWire(fn.function.name)).toBe(TOOL_REGISTRY[i].name);
      expect(JSON.stringify(fn.function.parameters)).not.toContain(String(Number.MAX_SAFE_INTEGER));
    }
  });
});
