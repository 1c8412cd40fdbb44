/**
 * Where an assignment or a mention reaches the brain: scheduled by the
 * board (reactions/taskChange, reactions/threadPost) after the change
 * commits, and taken up by reactions/triggers.
 */
import { v } from "convex/values";
import { internalMutation } from "./_generated/server";
import { recordTrigger } from "./reactions/triggers";

/** An agent was assigned a task. */
export const agentAssigned = internalMutation({
  args: { taskId: v.id("tasks"), sessionKey: v.string() },
  returns: v.union(v.id("agentTriggers"), v.null()),
  handler: async (ctx, { taskId, sessionKey }) => await recordTrigger(ctx, { taskId, agentSessionKey: sessionKey, kind: "assigned" }),
});

/** An agent was @mentioned in a task thread. */
export const agentMentioned = internalMutation({
  args: { taskId: v.id("tasks"), messageId: v.id("messages"), sessionKey: v.string() },
  returns: v.union(v.id("agentTriggers"), v.null()),
  handler: async (ctx, { taskId, messageId, sessionKey }) => await recordTrigger(ctx, { taskId, messageId, agentSessionKey: sessionKey, kind: "mentioned" }),
});
