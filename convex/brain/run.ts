"use node";
/**
 * A run: assemble context → call the model → parse tool calls from its reply
 * → check permission and execute → feed concise observations back → repeat
 * (at most `maxToolIterations` rounds of tools) → post the agent's reply in
 * the thread. A model failure ends the run with status `error`, a readable
 * reason and a system message in the thread.
 */
import { v } from "convex/values";
import { internal } from "../_generated/api";
import { env, internalAction } from "../_generated/server";
import { modelConfigProblem, NO_MODEL_NOTE } from "../runs";
import { brainConfig } from "./config";
import { dispatchToolCalls } from "./dispatch";
import { callModel, modelConfigFromEnv, type ChatMessage } from "./model";
import { isChatTool } from "../tools/registry";
import { assemblePrompt, BASE_MIDDLEWARES, chatMiddleware, observationsMessage } from "./prompt";
import { parseToolCalls, stripToolCalls } from "./toolCalls";

export const execute = internalAction({
  args: { runId: v.id("runs") },
  returns: v.null(),
  handler: async (ctx, { runId }) => {
    if (!(await ctx.runMutation(internal.runs.markRunning, { runId }))) return null;
    const log = (line: string) => console.log(`[run ${runId}] ${line}`);
    const finish = (status: "completed" | "error", reason: string, reply?: string) =>
      ctx.runMutation(internal.runs.finish, { runId, status, reason, reply });
    const problem = modelConfigProblem();
    const model = problem === null ? modelConfigFromEnv(env) : null;
    if (model === null) {
      await finish("error", problem ?? NO_MODEL_NOTE);
      return null;
    }
    const config = brainConfig(env);
    const conversation: ChatMessage[] = [];
    const seen = new Set<string>();
    try {
      for (let round = 0; ; round++) {
        const started = performance.now();
        const context = await ctx.runQuery(internal.brain.context.getAssembledContext, { runId });
        const chat = chatMiddleware(() => ctx.runQuery(internal.chat.contextForRun, { runId }));
        const { messages, steps } = await assemblePrompt(context, [...BASE_MIDDLEWARES, chat]);
        for (const step of steps) log(`context: ${step}`);
        const chatContext = chat.fetched();
        if (chatContext !== null) log(`chat: retrieved ${chatContext.messages.length} new message(s), newPointer ${chatContext.newPointer}`);
        const contextDone = performance.now();
        log(`model request (${context.agent.model ?? model.defaultModel})`);
        const reply = await callModel(model, { model: context.agent.model, messages: [...messages, ...conversation] });
        const modelDone = performance.now();
        const calls = parseToolCalls(reply.content);
        if (chatContext !== null) {
          // Only now, after the model has seen them, do the messages count as read.
          const chatOnlyTurn = calls.length > 0 && calls.every((call) => isChatTool(call.name));
          await ctx.runMutation(internal.chat.advanceForRun, { runId, newPointer: chatContext.newPointer, chatOnlyTurn });
        }
        const toolsAllowed = round < config.maxToolIterations;
        let observations: Array<{ tool: string; text: string }> = [];
        if (calls.length > 0 && toolsAllowed) {
          observations = await dispatchToolCalls(ctx, runId, calls, config, seen, log);
        } else if (calls.length > 0) {
          for (const call of calls) {
            await ctx.runMutation(internal.runs.recordToolCall, {
              runId,
              record: {
                name: call.name,
                args: JSON.stringify(call.args ?? null),
                outcome: "refused",
                observation: `not run: the limit of ${config.maxToolIterations} tool rounds per run was reached`,
                at: Date.now(),
              },
              delegated: false,
              guard: `tool iteration limit reached (${config.maxToolIterations})`,
            });
          }
        }
        await ctx.runMutation(internal.runs.recordModelCall, {
          runId,
          model: reply.model,
          promptTokens: reply.promptTokens,
          completionTokens: reply.completionTokens,
          timing: { contextMs: contextDone - started, modelMs: modelDone - contextDone, dispatchMs: performance.now() - modelDone },
        });
        const said = stripToolCalls(reply.content);
        if (observations.length === 0) {
          const reason = calls.length > 0 ? `tool iteration limit reached (${config.maxToolIterations})` : "replied";
          await finish("completed", reason, said);
          return null;
        }
        conversation.push({ role: "assistant", content: reply.content }, observationsMessage(observations, round + 1 >= config.maxToolIterations));
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      log(`error: ${reason}`);
      await finish("error", reason);
    }
    return null;
  },
});
