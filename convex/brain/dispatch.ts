/**
 * Executes the tool calls of one model reply, in order. Every call is
 * checked on the server against the agent's `allowedTools` as stored now and
 * validated with the registry's schema; every call gets a recorded result,
 * also when it is denied, invalid, refused by a loop guard or fails.
 */
import { ConvexError } from "convex/values";
import { internal } from "../_generated/api";
import type { Id } from "../_generated/dataModel";
import type { ActionCtx } from "../_generated/server";
import { findTool } from "../tools/registry";
import type { ToolCallRecord } from "../validators";
import type { BrainConfig } from "./config";
import { MAX_TOOL_CALLS_PER_REPLY, type ParsedToolCall } from "./toolCalls";

export interface Observation {
  tool: string;
  text: string;
}

type Outcome = ToolCallRecord["outcome"];

/** Observations stay concise: a longer one is cut. */
const MAX_OBSERVATION_CHARS = 4000;

/** Canonical JSON of a call, to spot an identical repeat within a run. */
function signature(name: string, args: unknown): string {
  const sortKeys = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sortKeys)
      : value !== null && typeof value === "object"
        ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, sortKeys(v)]))
        : value;
  return `${name} ${JSON.stringify(sortKeys(args))}`;
}

function errorText(error: unknown): string {
  if (error instanceof ConvexError) {
    const data = error.data as { message?: string } | string;
    return typeof data === "string" ? data : (data.message ?? JSON.stringify(data));
  }
  return error instanceof Error ? error.message : String(error);
}

export async function dispatchToolCalls(
  ctx: ActionCtx,
  runId: Id<"runs">,
  calls: ParsedToolCall[],
  config: BrainConfig,
  seen: Set<string>,
  log: (line: string) => void,
): Promise<Observation[]> {
  const observations: Observation[] = [];
  for (const [index, call] of calls.entries()) {
    const scope = await ctx.runQuery(internal.brain.context.agentForDispatch, { runId });
    let outcome: Outcome = "ok";
    let text: string;
    let delegated = false;
    let guard: string | undefined;
    const tool = findTool(call.name, scope.chatEnabled);
    log(`[TOOL: ${call.name}]`);
    if (index >= MAX_TOOL_CALLS_PER_REPLY) {
      outcome = "refused";
      guard = `more than ${MAX_TOOL_CALLS_PER_REPLY} tool calls in one reply`;
      text = `not run: at most ${MAX_TOOL_CALLS_PER_REPLY} tool calls per reply`;
    } else if (tool === undefined) {
      outcome = "invalid";
      text = `unknown tool "${call.name}"; your tools are: ${scope.allowedTools.join(", ") || "none"}`;
    } else if (!scope.allowedTools.includes(tool.name)) {
      outcome = "denied";
      text = `permission denied: ${scope.name} may not call ${tool.name}`;
    } else if (call.error !== undefined || call.args === undefined) {
      outcome = "invalid";
      text = `${tool.name}: ${call.error ?? "no arguments"}. Expected arguments: ${tool.usage}`;
    } else {
      const parsed = tool.args.safeParse(call.args);
      if (!parsed.success) {
        outcome = "invalid";
        const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "arguments"}: ${issue.message}`).join("; ");
        text = `${tool.name}: invalid arguments (${problems}). Expected arguments: ${tool.usage}`;
      } else if (seen.has(signature(tool.name, parsed.data))) {
        outcome = "refused";
        guard = "repeated identical tool call";
        text = `${tool.name}: refused, you already made this exact call in this run`;
      } else if (tool.name === "delegate_task" && scope.delegations >= config.maxDelegationsPerRun) {
        outcome = "refused";
        guard = `delegation limit per run reached (${config.maxDelegationsPerRun})`;
        text = `delegate_task: refused, ${guard}`;
      } else {
        seen.add(signature(tool.name, parsed.data));
        try {
          const result = await execute(ctx, runId, scope, tool.name, parsed.data as Record<string, unknown>);
          text = result.text;
          delegated = result.delegated;
        } catch (error) {
          outcome = "error";
          text = `${tool.name} failed: ${errorText(error)}`;
          if (/depth limit/.test(text)) guard = "delegation depth limit reached";
        }
      }
    }
    await ctx.runMutation(internal.runs.recordToolCall, {
      runId,
      record: { name: call.name, args: JSON.stringify(call.args ?? null), outcome, observation: text, at: Date.now() },
      delegated,
      guard,
    });
    observations.push({ tool: call.name, text });
  }
  return observations;
}

async function execute(
  ctx: ActionCtx,
  runId: Id<"runs">,
  scope: { sessionKey: string; departmentId: Id<"departments">; taskId: Id<"tasks"> },
  name: string,
  args: Record<string, unknown>,
): Promise<{ text: string; delegated: boolean }> {
  switch (name) {
    case "delegate_task": {
      const a = args as { title: string; description: string; assignees: string[]; instruction: string; priority?: "low" | "medium" | "high"; tags?: string[] };
      const result = await ctx.runAction(internal.tools.delegation.delegateTask, {
        departmentId: scope.departmentId,
        delegatorSessionKey: scope.sessionKey,
        title: a.title,
        description: a.description,
        assignees: a.assignees,
        instruction: a.instruction,
        priority: a.priority,
        tags: a.tags,
        parentTaskId: scope.taskId,
        runId,
      });
      return {
        text: `[DELEGATED_TASK] created “${result.title}” (${result.taskId}) assigned to ${result.assigneesResolved.join(", ")}; the first instruction is posted in its thread`,
        delegated: true,
      };
    }
    case "post_message":
      await ctx.runMutation(internal.tools.thread.postMessageTool, { runId, content: String(args.content) });
      return { text: "posted in the thread", delegated: false };
    case "update_task_status": {
      const moved = await ctx.runMutation(internal.tools.thread.updateTaskStatus, { runId, status: args.status as never });
      return { text: moved.from === moved.to ? `the task was already ${moved.to}` : `moved the task from ${moved.from} to ${moved.to}`, delegated: false };
    }
    case "ask_question":
      await ctx.runMutation(internal.tools.thread.askQuestion, { runId, question: String(args.question) });
      return { text: "asked in the thread; the task is blocked until a human answers", delegated: false };
    case "chat.post": {
      const posted = await ctx.runMutation(internal.chat.postForRun, { runId, text: String(args.text) });
      return { text: JSON.stringify(posted), delegated: false };
    }
    case "chat.getNew": {
      const result = await ctx.runQuery(internal.chat.getNewForRun, { runId });
      const json = JSON.stringify(result);
      return { text: json.length > MAX_OBSERVATION_CHARS ? `${json.slice(0, MAX_OBSERVATION_CHARS)}…` : json, delegated: false };
    }
    default:
      throw new Error(`${name} is not available yet in this deployment`);
  }
}
