/**
 * A department's tool-call mode (convex/modelSettings.ts): native, text or
 * auto, over the deployment's MAESTRO_TOOL_CALLS; from the attacker's side
 * too: only owners and admins of the department change it, and the mode is
 * what a run's context carries (so the prompt and the request follow it).
 */
import { afterEach, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import { assemblePrompt, BASE_MIDDLEWARES } from "../../convex/brain/prompt";
import { toolCallModeFromEnv } from "../../convex/lib/modelConfig";
import { AGENTS, addToDepartment, asUser, createTask, demoSquad, expectError, insertRun, roundInputs } from "./setup";

afterEach(() => {
  delete process.env.MAESTRO_TOOL_CALLS;
});

describe("the tool-call mode", () => {
  test("defaults to the deployment's (auto); an admin chooses text, the run's context and prompt follow, null goes back", async () => {
    const { t, departmentId, admin } = await demoSquad();
    expect(await admin.query(api.modelSettings.get, { departmentId })).toEqual({ toolCalls: "auto", chosen: false });
    const taskId = await createTask(admin, departmentId, { title: "Modes" });
    const runId = await insertRun(t, AGENTS.jarvis, taskId);
    const native = (await roundInputs(t, runId)).context;
    expect(native.toolCalls).toBe("auto");
    const nativePrompt = (await assemblePrompt(native, BASE_MIDDLEWARES)).messages[0].content;
    expect(nativePrompt).toContain("they come with this request as functions");
    expect(nativePrompt).not.toContain("[TOOL: <name>");

    await admin.mutation(api.modelSettings.setToolCalls, { departmentId, toolCalls: "text" });
    expect(await admin.query(api.modelSettings.get, { departmentId })).toEqual({ toolCalls: "text", chosen: true });
    const text = (await roundInputs(t, runId)).context;
    expect(text.toolCalls).toBe("text");
    const textPrompt = (await assemblePrompt(text, BASE_MIDDLEWARES)).messages[0].content;
    expect(textPrompt).toContain("[TOOL: <name> ARG: {<JSON arguments>}]");
    expect(textPrompt).toContain("- delegate_task: ");
    // The text path costs prompt tokens the native path does not.
    expect(textPrompt.length).toBeGreaterThan(nativePrompt.length + 500);

    await admin.mutation(api.modelSettings.setToolCalls, { departmentId, toolCalls: null });
    expect(await admin.query(api.modelSettings.get, { departmentId })).toEqual({ toolCalls: "auto", chosen: false });
  });

  test("the deployment's default comes from MAESTRO_TOOL_CALLS; a bad value is refused by name", () => {
    expect(toolCallModeFromEnv({})).toBe("auto");
    expect(toolCallModeFromEnv({ MAESTRO_TOOL_CALLS: "Native" })).toBe("native");
    expect(toolCallModeFromEnv({ MAESTRO_TOOL_CALLS: "text" })).toBe("text");
    expect(() => toolCallModeFromEnv({ MAESTRO_TOOL_CALLS: "functions" })).toThrow('MAESTRO_TOOL_CALLS must be native, text or auto, got "functions"');
  });

  test("members, viewers, other departments and strangers change nothing", async () => {
    const { t, departmentId, admin, grace, vera, other } = await demoSquad({ grace: true, vera: true, other: true });
    const change = { departmentId, toolCalls: "text" as const };
    await expectError(grace.mutation(api.modelSettings.setToolCalls, change), "FORBIDDEN");
    await expectError(vera.mutation(api.modelSettings.setToolCalls, change), "FORBIDDEN");
    await expectError(other.member.mutation(api.modelSettings.setToolCalls, change), "FORBIDDEN");
    await expectError(other.member.query(api.modelSettings.get, { departmentId }), "FORBIDDEN");
    await expect(t.mutation(api.modelSettings.setToolCalls, change)).rejects.toThrow();
    const stranger = await asUser(t, "Stranger");
    await expectError(stranger.mutation(api.modelSettings.setToolCalls, change), "FORBIDDEN");
    await addToDepartment(t, other.departmentId, "Grace", "admin");
    await expectError(grace.mutation(api.modelSettings.setToolCalls, change), "FORBIDDEN");
    expect(await admin.query(api.modelSettings.get, { departmentId })).toEqual({ toolCalls: "auto", chosen: false });
    // A value outside the three is refused by the validator.
    await expect(admin.mutation(api.modelSettings.setToolCalls, { departmentId, toolCalls: "functions" as never })).rejects.toThrow();
  });
});
