/**
 * How a department's agents call tools with its model: `native` (the
 * request's `tools`, the answer's `tool_calls`), `text` (`[TOOL: …]` lines
 * in the prompt and the reply, for servers without function calling) or
 * `auto` (native, and `[TOOL: …]` in a reply's text still read). Absent,
 * the deployment's MAESTRO_TOOL_CALLS decides (docs/agents-and-models.md).
 * Every member reads it; owners and admins change it.
 */
import { v } from "convex/values";
import { departmentMutation, departmentQuery } from "./functions";
import { settingsOf, saveToolCallMode, toolCallModeOf } from "./records/settings";
import { vToolCallMode } from "./validators";

/** The mode in force, and whether the department chose it (else it is the deployment's default). */
export const get = departmentQuery({
  args: {},
  returns: v.object({ toolCalls: vToolCallMode, chosen: v.boolean() }),
  handler: async (ctx, { departmentId }) => ({
    toolCalls: await toolCallModeOf(ctx, departmentId),
    chosen: (await settingsOf(ctx, departmentId))?.toolCalls !== undefined,
  }),
});

/** Owners and admins: sets the department's tool-call mode; null goes back to the deployment's default. */
export const setToolCalls = departmentMutation({
  role: "admin",
  args: { toolCalls: v.union(vToolCallMode, v.null()) },
  returns: v.null(),
  handler: async (ctx, { departmentId, toolCalls }) => {
    await saveToolCallMode(ctx, departmentId, toolCalls);
    return null;
  },
});
