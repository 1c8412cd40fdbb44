/**
 * Executes the tool calls of one model reply, in order. Every call is
 * checked on the server against the agent's `allowedTools` as stored now and
 * validated with the registry's schema; every call gets a recorded result,
 * also when it is denied, invalid, refused by a loop guard or fails. Unknown
 * tools, permission denials, unknown assignees and guard stops are also said
 * in the thread, as a system note naming the problem and the choices.
 *
 * The dispatcher knows no tool by name: it loops over registry entries and
 * reads each executor's typed result.
 */
import { ConvexError } from "convex/values";
import { internal } from "../_generated/api";
import type { Id } from "../_generated/dataModel";
import type { ActionCtx } from "../_generated/server";
import { guards } from "../tools/guards";
import { canonicalJson, idempotencyKey } from "../tools/idempotency";
import { deniedNote, guardNote, unknownToolNote, type GuardStop } from "../tools/notes";
import { findTool, type ToolDefinition, type ToolResult } from "../tools/registry";
import type { ToolCallRecord } from "../validators";
import type { BrainConfig } from "./config";
import { MAX_TOOL_CALLS_PER_REPLY, type ParsedToolCall } from "./toolCalls";

export interface Observation {
  tool: string;
  text: string;
}

type Outcome = ToolCallRecord["outcome"];

const OUTCOME: Record<Exclude<ToolResult, { ok: true }>["problem"], Outcome> = {
  invalid: "invalid",
  failed: "error",
  denied: "denied",
  guard: "refused",
};

/** A thrown error's message: a ConvexError's `data.message`, an Error's message. */
function errorText(error: unknown): string {
  if (error instanceof ConvexError) {
    const data = error.data as { message?: string } | string;
    return typeof data === "string" ? data : (data.message ?? JSON.stringify(data));
  }
  return error instanceof Error ? error.message : String(error);
}

function refused(tool: string, stop: GuardStop): ToolResult {
  return { ok: false, problem: "guard", text: `${tool}: refused, ${stop.reason}`, stop };
}

/** What the dispatcher knows of the calling agent, read fresh before each call. */
export interface DispatchScope {
  name: string;
  sessionKey: string;
  /** What the agent may call now. */
  allowedTools: string[];
  chatEnabled: boolean;
  delegations: number;
  squad: Array<{ name: string; sessionKey: string; allowedTools: string[] }>;
}

/**
 * The checks before a call runs, in order: the per-reply limit, the tool's
 * existence, permission, the arguments, an identical repeat in this run and
 * the per-run delegation limit. Returns the refusal, or the tool and its
 * parsed arguments to execute. Pure: `seen` is only read.
 */
export function checkCall(
  call: ParsedToolCall,
  index: number,
  scope: DispatchScope,
  seen: ReadonlySet<string>,
  config: Pick<BrainConfig, "maxDelegationsPerRun">,
): { refused: ToolResult } | { tool: ToolDefinition; args: Record<string, unknown>; signature: string } {
  if (index >= MAX_TOOL_CALLS_PER_REPLY) {
    const stop = guards.perReply(MAX_TOOL_CALLS_PER_REPLY);
    return { refused: { ok: false, problem: "guard", text: `not run: at most ${MAX_TOOL_CALLS_PER_REPLY} tool calls per reply`, stop } };
  }
  const tool = findTool(call.name, scope.chatEnabled);
  if (tool === undefined) {
    return {
      refused: {
        ok: false,
        problem: "invalid",
        text: `unknown tool "${call.name}"; your tools are: ${scope.allowedTools.join(", ") || "none"}`,
        note: unknownToolNote(scope.name, call.name, scope.allowedTools),
      },
    };
  }
  if (!scope.allowedTools.includes(tool.name)) {
    const allowedAgents = scope.squad.filter((a) => a.sessionKey !== scope.sessionKey && a.allowedTools.includes(tool.name)).map((a) => a.name);
    return {
      refused: { ok: false, problem: "denied", text: `permission denied: ${scope.name} may not call ${tool.name}`, note: deniedNote(scope.name, tool.name, allowedAgents) },
    };
  }
  if (call.error !== undefined || call.args === undefined) {
    return { refused: { ok: false, problem: "invalid", text: `${tool.name}: ${call.error ?? "no arguments"}. Expected arguments: ${tool.usage}` } };
  }
  const parsed = tool.args.safeParse(call.args);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "arguments"}: ${issue.message}`).join("; ");
    return { refused: { ok: false, problem: "invalid", text: `${tool.name}: invalid arguments (${problems}). Expected arguments: ${tool.usage}` } };
  }
  const signature = `call ${tool.name} ${canonicalJson(parsed.data)}`;
  if (seen.has(signature)) {
    return { refused: { ...refused(tool.name, guards.repeated()), text: `${tool.name}: refused, you already made this exact call in this run` } };
  }
  if (tool.delegates === true && scope.delegations >= config.maxDelegationsPerRun) {
    return { refused: refused(tool.name, guards.perRun(config.maxDelegationsPerRun)) };
  }
  return { tool, args: parsed.data, signature };
}

/** What the thread is told about a result, if anything. */
export function noteFor(agent: string, tool: string, result: ToolResult): string | undefined {
  if (result.ok) return undefined;
  return result.problem === "guard" ? guardNote(agent, tool, result.stop) : result.note;
}

/**
 * Runs `calls` for the run. `seen` lives as long as the run: the signatures
 * of the calls it made (an identical repeat is refused) and the notes it
 * posted (each said once).
 */
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
    log(`[TOOL: ${call.name}]`);
    const checked = checkCall(call, index, scope, seen, config);
    let result: ToolResult;
    if ("refused" in checked) {
      result = checked.refused;
    } else {
      const { tool, args, signature } = checked;
      seen.add(signature);
      const key = idempotencyKey(scope.cause, tool.name, args);
      try {
        result = await tool.execute(
          ctx,
          { runId, agentName: scope.name, sessionKey: scope.sessionKey, departmentId: scope.departmentId, taskId: scope.taskId, triggerKind: scope.cause.trigger.kind, key },
          args,
        );
      } catch (error) {
        result = { ok: false, problem: "failed", text: `${tool.name} failed: ${errorText(error)}` };
      }
    }
    await ctx.runMutation(internal.runs.recordToolCall, {
      runId,
      record: { name: call.name, args: JSON.stringify(call.args ?? null), outcome: result.ok ? "ok" : OUTCOME[result.problem], observation: result.text, at: Date.now() },
      delegated: result.ok && result.delegated === true,
      guard: !result.ok && result.problem === "guard" ? result.stop.reason : undefined,
    });
    const note = noteFor(scope.name, call.name, result);
    if (note !== undefined && !seen.has(`note ${note}`)) {
      seen.add(`note ${note}`);
      await ctx.runMutation(internal.tools.thread.postNote, { runId, content: note });
    }
    observations.push({ tool: call.name, text: result.text });
  }
  return observations;
}
