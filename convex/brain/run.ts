"use node";
/**
 * A run: assemble context → stream the model's reply into the run's events →
 * parse tool calls from it → check permission and execute each → feed
 * concise observations back → repeat (at most `maxToolIterations` rounds of
 * tools) → post the agent's reply in the thread. A model failure ends the
 * run with status `error`, a readable reason and a system message in the
 * thread.
 *
 * Every write names this execution's attempt; once one answers "aborted"
 * (a person pressed Stop, the sweeper retried or ended the run) the action
 * cancels its model call and stops: no tool runs and nothing is posted.
 */
import { v } from "convex/values";
import { internal } from "../_generated/api";
import type { FunctionArgs } from "convex/server";
import type { Id } from "../_generated/dataModel";
import { env, internalAction, type ActionCtx } from "../_generated/server";
import { DeltaBatcher } from "../lib/deltaBatcher";
import { modelConfigFromEnv, modelConfigProblem, NO_MODEL_NOTE } from "../lib/modelConfig";
import { isChatTool, toolFunctions, toolNameOfWire } from "../tools/registry";
import { brainConfig } from "../lib/brainConfig";
import type { PauseRequest } from "../lib/pauses";
import type { RunPause, ToolCallMode } from "../validators";
import { dispatchCall, dispatchTogether, opensWithCallsTogether, settlePause, type CallRecord, type Dispatched, type DispatchScopeRead, type Observation, type Reported } from "./dispatch";
import { ModelAbortedError, streamModel, type ChatMessage, type WireToolCall } from "./model";
import { assemblePrompt, BASE_MIDDLEWARES, injectionMiddleware, observationsMessage, toolMessageContent } from "./prompt";
import { modelSummaries } from "./summariser";
import { MAX_TOOL_CALLS_PER_REPLY, nativeToolCalls, parseToolCalls, stripToolCalls, type ParsedToolCall } from "../lib/toolCalls";

/** While the model is quiet, how often the action renews its lease and checks it was not stopped. */
export const KEEPALIVE_MS = 1_000;

/** Thrown inside the loop once the run is no longer this attempt's: end quietly. */
class Stopped extends Error {}

export const execute = internalAction({
  args: { runId: v.id("runs") },
  returns: v.null(),
  handler: async (ctx, { runId }) => {
    // Starts the run and, for one that paused for a person, says where it goes on.
    const started = await ctx.runMutation(internal.brain.writes.start, { runId });
    if (started === null) return null;
    const { attempt, resume, failure } = started;
    const log = (line: string) => console.log(`[run ${runId}] ${line}`);
    const finish = (status: "completed" | "error", reason: string, reply?: string, modelCall?: ModelCall) =>
      ctx.runMutation(internal.brain.writes.finish, { runId, attempt, status, reason, reply, modelCall });
    if (failure !== undefined) {
      log(`error: ${failure}`);
      await finish("error", failure);
      return null;
    }
    const problem = modelConfigProblem();
    const model = problem === null ? modelConfigFromEnv(env) : null;
    if (model === null) {
      await finish("error", problem ?? NO_MODEL_NOTE);
      return null;
    }
    const writer = { runId, attempt };
    const live = (verdict: "ok" | "aborted") => {
      if (verdict === "aborted") throw new Stopped();
    };
    const config = brainConfig(env);
    const conversation: ChatMessage[] = [];
    const seen = new Set<string>();
    let toolIndex = 0;
    let firstRound = 0;
    /** A model call whose tools have run, recorded with the run's next write (the next round's start, a pause or the end). */
    let unrecorded: ModelCall | undefined;
    try {
      // A run that paused for a person goes on from the paused call, with what they decided, then runs
      // the rest of that reply's calls in order, under the same guards (the same `seen`, the same budgets).
      if (resume !== null) {
        const { pause } = resume;
        for (const line of pause.seen) seen.add(line);
        const reported = await settlePause(ctx, runId, pause, resume.resolution, config, seen, log);
        const settled: Observation = { ...reported.observation, ...(pause.call.id === undefined ? {} : { callId: pause.call.id }) };
        const { recorded } = reported;
        const { rest, offset } = callsAfterPause(pause);
        live(
          await ctx.runMutation(internal.brain.writes.endToolCall, {
            ...writer,
            index: pause.index,
            name: pause.call.name,
            observation: settled.text,
            recorded,
            ...(rest.length === 0 ? {} : { next: toolStart(pause.index + 1, rest[0]) }),
          }),
        );
        const results = [...pause.before, settled, ...pause.after];
        if (rest.length > 0) {
          const ran = await runTools(ctx, writer, rest, { firstIndex: pause.index + 1, firstOffset: offset + 1 }, dispatcher(ctx, runId, config, seen, log));
          if (ran.paused !== null) {
            const { state, request } = pauseState(pause, { ...ran.paused, before: [...results, ...ran.paused.before] }, seen);
            live(await ctx.runMutation(internal.brain.writes.pause, { ...writer, request, state }));
            log(`waiting again: ${request.kind} for ${ran.paused.call.name}`);
            return null;
          }
          results.push(...ran.observations);
        }
        // The same conversation, the same reply and call ids as the attempt that paused, then every call's result.
        conversation.push(...pause.conversation.map(fromStored), ...afterReply(pause.reply, pause.replyCalls, results, pause.round + 1 >= config.maxToolIterations));
        toolIndex = pause.nextIndex;
        firstRound = pause.round + 1;
      }
      for (let round = firstRound; ; round++) {
        const started = performance.now();
        // The context and everything injected come from one read (one transaction, one snapshot).
        const inputs = await ctx.runQuery(internal.brain.context.roundInputs, { runId });
        const { context } = inputs;
        // One injection step for everything injected (inbox, #maestro chat, context pack), under one budget;
        // it stays last, right before the model call (the chat spec).
        const { pii, summariser } = inputs.injection;
        // A summariser model is asked here, in the action, before the injection step; what it does not answer well stays extractive.
        const summarised = summariser === null || inputs.inbox === null ? null : await modelSummaries(summariser, inputs.inbox.unread, pii);
        if (summarised !== null && summarised.asked > 0) {
          const fell = summarised.fallbacks.length;
          log(`summariser: ${summarised.summaries.size} of ${summarised.asked} thread(s) by ${summariser!.model}${fell > 0 ? `; extractive for ${fell} (${summarised.fallbacks.join("; ")})` : ""}`);
        }
        const injection = injectionMiddleware(
          { inbox: async () => inputs.inbox, chat: async () => inputs.chat, pack: async () => inputs.pack },
          config.injectionTokenBudget,
          { summaries: summarised?.summaries, pii },
        );
        const { messages, steps } = await assemblePrompt(context, [...BASE_MIDDLEWARES, injection]);
        for (const step of steps) log(`context: ${step}`);
        const injected = injection.injected();
        if (injected !== null) {
          log(`injection: ${injected.blocking.length} blocking, ${injected.shown.length} inbox, ${injected.chatShown} chat, ${injected.packItems} pack item(s), ${injected.tokens} tokens`);
        }
        const chatContext = injection.fetched();
        if (chatContext !== null) log(`chat: retrieved ${chatContext.messages.length} new message(s), newPointer ${chatContext.newPointer}`);
        const contextDone = performance.now();
        log(`model request (${context.agent.model ?? model.defaultModel})`);
        const begun = await ctx.runMutation(internal.brain.writes.beginMessage, { ...writer, round, ...(unrecorded === undefined ? {} : { modelCall: unrecorded }) });
        unrecorded = undefined;
        live(begun);
        const tools = context.toolCalls !== "text" && context.tools.length > 0 ? toolFunctions(context.tools) : undefined;
        const toolsAllowed = round < config.maxToolIterations;
        // The reply's text as it streams: the words before a call dispatched early are said with it.
        let words = "";
        // Native calls start as soon as their arguments are complete, while the rest of the reply streams.
        const early = tools !== undefined && toolsAllowed ? new StreamedCalls(ctx, writer, toolIndex, dispatcher(ctx, runId, config, seen, log), () => words) : null;
        let streamed: { reply: Reply; rest: string };
        try {
          streamed = await streamReply(ctx, writer, ({ onDelta, signal }) =>
            streamModel(
              model,
              { model: context.agent.model, messages: [...messages, ...conversation], tools },
              {
                signal,
                emptyIsAnswer: round > 0 || context.trigger.kind === "delegation_result",
                onDelta: (delta) => {
                  words += delta;
                  onDelta(delta);
                },
                ...(early === null ? {} : { onCall: (call) => early.push(call) }),
              },
            ),
          );
        } catch (error) {
          // No call starts after the stream failed or was stopped; one already running finishes first.
          early?.cancel();
          await early?.settled();
          throw error;
        }
        const { reply, rest } = streamed;
        const modelDone = performance.now();
        const { calls, wireCalls } = replyCalls(reply, context.toolCalls);
        const dispatchedEarly = early !== null && early.count > 0 && wireCalls !== undefined;
        if (early !== null && !dispatchedEarly) early.cancel();
        early?.end();
        // A reply that calls tools says its words where the run answers, once: the words before a call
        // dispatched early went with that call (said first); the rest go with the reply's end.
        const said = dispatchedEarly ? early.said : null;
        if (said !== null) await early!.begun();
        const say = calls.length === 0 ? undefined : stripToolCalls(said === null ? reply.content : words.slice(said.length));
        const first = calls.length > 0 && toolsAllowed && !dispatchedEarly ? calls[0] : undefined;
        const modelCall = (): ModelCall => ({
          model: reply.model,
          promptTokens: reply.promptTokens,
          completionTokens: reply.completionTokens,
          timing: { contextMs: contextDone - started, modelMs: modelDone - contextDone, dispatchMs: performance.now() - modelDone },
          injectionTokens: injected?.tokens ?? 0,
        });
        // The reply's last text, message_end, what the model saw counted as read, and the first call
        // announced or, for a reply that calls no tool, the run's end with its last model call: one write.
        const ended = await ctx.runMutation(internal.brain.writes.endReply, {
          ...writer,
          ...(rest === "" ? {} : { delta: rest }),
          model: reply.model,
          promptTokens: reply.promptTokens,
          completionTokens: reply.completionTokens,
          ...(injected === null ? {} : { seen: { shown: injected.shown, blocking: injected.blocking } }),
          ...(chatContext === null
            ? {}
            : { chat: { newPointer: chatContext.newPointer, chatOnlyTurn: calls.length > 0 && calls.every((call) => isChatTool(call.name)) } }),
          ...(say === undefined || say === "" ? {} : { say }),
          ...(first === undefined ? {} : { firstCall: toolStart(toolIndex, first) }),
          ...(calls.length === 0 ? { end: { reason: "replied", reply: stripToolCalls(reply.content), modelCall: modelCall() } } : {}),
        });
        if (ended === "aborted") {
          early?.cancel();
          await early?.settled();
          throw new Stopped();
        }
        if (calls.length === 0) return null;
        let observations: Observation[] = [];
        let paused: Paused | null = null;
        if (dispatchedEarly) {
          ({ observations, paused } = await early.result());
          toolIndex += calls.length;
        } else if (first !== undefined) {
          ({ observations, paused } = await runTools(ctx, writer, calls, { firstIndex: toolIndex, firstOffset: 0 }, dispatcher(ctx, runId, config, seen, log)));
          toolIndex += calls.length;
        } else if (calls.length > 0) {
          const guard = `tool iteration limit reached (${config.maxToolIterations})`;
          for (const call of calls) await refuse(ctx, runId, call, `not run: the limit of ${config.maxToolIterations} tool rounds per run was reached`, guard);
        }
        if (paused === null && observations.length === 0) {
          // Calls past the tool-round limit, refused above: the last model call is recorded with the run's end, in one write
          // (the reply's words were said as it ended).
          await finish("completed", `tool iteration limit reached (${config.maxToolIterations})`, undefined, modelCall());
          return null;
        }
        // Recorded with the next write: the pause below, or the next round's beginMessage.
        unrecorded = modelCall();
        if (paused !== null) {
          const at = {
            conversation: conversation.map(toStored),
            round,
            nextIndex: toolIndex,
            reply: reply.content,
            ...(wireCalls === undefined ? {} : { replyCalls: wireCalls }),
          };
          const { state, request } = pauseState(at, paused, seen);
          const verdict = await ctx.runMutation(internal.brain.writes.pause, { ...writer, request, state, modelCall: unrecorded });
          unrecorded = undefined;
          live(verdict);
          log(`waiting: ${request.kind} for ${paused.call.name}`);
          return null;
        }
        conversation.push(...afterReply(reply.content, wireCalls, observations, round + 1 >= config.maxToolIterations));
      }
    } catch (error) {
      if (error instanceof Stopped) {
        if (unrecorded !== undefined) await ctx.runMutation(internal.brain.writes.recordModelCall, { runId, ...unrecorded });
        log("stopped: the run is no longer this attempt's");
        return null;
      }
      const reason = error instanceof Error ? error.message : String(error);
      log(`error: ${reason}`);
      await finish("error", reason, undefined, unrecorded);
    }
    return null;
  },
});

type Writer = { runId: Id<"runs">; attempt: number };
type ModelCall = Omit<FunctionArgs<typeof internal.brain.writes.recordModelCall>, "runId">;
type Reply = Awaited<ReturnType<typeof streamModel>>;

/**
 * Streams one model reply into `message_update` events (batched), keeping the
 * lease alive while the model is quiet. A reply cut short ends its message
 * here; a complete one is ended by the caller (`endReply`, together with what
 * follows it), which also writes `rest`, the reply's text not streamed yet.
 * The model call is cancelled as soon as a write says the run was stopped.
 *
 * @throws Stopped when the run was stopped meanwhile.
 */
async function streamReply(
  ctx: ActionCtx,
  writer: Writer,
  call: (options: { signal: AbortSignal; onDelta: (delta: string) => void }) => Promise<Reply>,
): Promise<{ reply: Reply; rest: string }> {
  const controller = new AbortController();
  // Any write of this run is a sign of life; the keep-alive only speaks when the stream is quiet.
  let lastSign = Date.now();
  const batcher = new DeltaBatcher(
    async (delta) => {
      lastSign = Date.now();
      return (await ctx.runMutation(internal.brain.writes.appendDelta, { ...writer, delta })) === "ok" ? "ok" : "stop";
    },
    () => controller.abort(),
  );
  let pulse: Promise<void> = Promise.resolve();
  const keepAlive = setInterval(() => {
    if (Date.now() - lastSign < KEEPALIVE_MS) return;
    lastSign = Date.now();
    pulse = pulse.then(async () => {
      const verdict = await ctx.runMutation(internal.brain.writes.keepAlive, writer).catch(() => "ok" as const);
      if (verdict === "aborted") controller.abort();
    });
  }, KEEPALIVE_MS / 2);
  let reply: Reply;
  try {
    reply = await call({ signal: controller.signal, onDelta: (delta) => batcher.push(delta) });
  } catch (error) {
    // Text that arrived before the failure stays in the timeline; the batcher is closed even after a
    // Stop, so no batch of this action is left waiting on a timer (the backend refuses it then).
    const closed = await batcher.close().catch(() => "stop" as const);
    const stopped = controller.signal.aborted || closed === "stop";
    if (stopped || error instanceof ModelAbortedError) throw new Stopped();
    await ctx.runMutation(internal.brain.writes.endMessage, { ...writer, model: "", promptTokens: 0, completionTokens: 0, interrupted: true });
    throw error;
  } finally {
    clearInterval(keepAlive);
    // No write of this action may outlive it.
    await pulse;
  }
  // The text not sent yet goes with the reply's end (endReply), not in a write of its own.
  const { verdict, rest } = await batcher.drain();
  if (verdict === "stop") throw new Stopped();
  return { reply, rest };
}

/**
 * A reply's native calls dispatched while the reply still streams: each
 * call joins the queue once its arguments are complete (streamModel's
 * `onCall`), and the calls waiting when the previous ones are done run next
 * (with those completed while the batch's first call was announced), in
 * order, through runTools (the same guards, the same per-reply limit;
 * consecutive delegations still run together). A call that pauses for a
 * person holds every call after it (they run once the run resumes, from the
 * whole reply); `cancel` (Stop, a failed stream) lets no further call start.
 */
class StreamedCalls {
  private readonly pending: ParsedToolCall[] = [];
  private wake: (() => void) | null = null;
  private ended = false;
  private cancelled = false;
  /** Calls taken into a batch so far. */
  count = 0;
  private readonly observations: Observation[] = [];
  private paused: Paused | null = null;
  private readonly done: Promise<void>;
  /** The reply's text streamed before its first call (raw): said with that call, before it runs. Null before the first call. */
  said: string | null = null;
  private markBegun!: () => void;
  private readonly begunOnce = new Promise<void>((resolve) => (this.markBegun = resolve));

  constructor(
    private readonly ctx: ActionCtx,
    private readonly writer: Writer,
    private readonly firstIndex: number,
    private readonly dispatch: Dispatcher,
    private readonly words: () => string,
  ) {
    this.done = this.loop();
    // Its failure is read by result(); never an unhandled rejection meanwhile.
    this.done.catch(() => {});
    void this.done.finally(() => this.markBegun()).catch(() => {});
  }

  push(call: WireToolCall): void {
    if (this.count === 0) this.said = this.words();
    this.pending.push(...nativeToolCalls([call], toolNameOfWire));
    this.count += 1;
    this.wake?.();
  }

  /** Resolves once the first call's start (with the words before it) is written, or the loop ended without it. */
  begun(): Promise<void> {
    return this.begunOnce;
  }

  /** The reply has ended: the loop stops once the queue is empty. */
  end(): void {
    this.ended = true;
    this.wake?.();
  }

  cancel(): void {
    this.cancelled = true;
    this.end();
  }

  /** Waits for the call running now, if any, whatever became of it. */
  async settled(): Promise<void> {
    await this.done.catch(() => {});
  }

  /** Every result in order, or the pause that holds the rest; throws what stopped the loop (Stopped when the run was stopped). */
  async result(): Promise<{ observations: Observation[]; paused: Paused | null }> {
    await this.done;
    return { observations: this.observations, paused: this.paused };
  }

  private async loop(): Promise<void> {
    let started = 0;
    for (;;) {
      if (this.cancelled || this.paused !== null) return;
      if (this.pending.length === 0) {
        if (this.ended) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = null;
        continue;
      }
      const batch = this.pending.splice(0);
      const index = this.firstIndex + started;
      // The batch's first call is announced on its own (the reply has not ended: endReply cannot say it); the rest by endToolCall.
      // The reply's words before its first call are said with it, before it acts.
      const say = started === 0 && this.said !== null ? stripToolCalls(this.said) : "";
      // The write answers with what the dispatcher reads before the call: the batch's first dispatch reads nothing more.
      const begun = await this.ctx.runMutation(internal.brain.writes.beginToolCall, { ...this.writer, ...toolStart(index, batch[0]), ...(say === "" ? {} : { say }), withScope: true });
      this.markBegun();
      if (begun === "aborted") throw new Stopped();
      const scope = typeof begun === "object" ? begun.scope : undefined;
      // Calls completed while the first was announced join its batch: they are next in line anyway, and
      // consecutive delegations among them then run in one transaction (runTools), one commit for the board.
      if (!this.cancelled) batch.push(...this.pending.splice(0));
      const ran = await runTools(this.ctx, this.writer, batch, { firstIndex: index, firstOffset: started, scope }, this.dispatch);
      if (ran.paused !== null) this.paused = { ...ran.paused, before: [...this.observations, ...ran.paused.before] };
      this.observations.push(...ran.observations);
      started += batch.length;
    }
  }
}

/** How runTools dispatches this run's calls: one at a time, or several together (dispatch.ts). */
interface Dispatcher {
  /** `scope`: what the dispatcher reads before the call, when the write announcing it read it already. */
  one(call: ParsedToolCall, scope?: DispatchScopeRead): Promise<Dispatched>;
  together(calls: ParsedToolCall[], scope?: DispatchScopeRead): Promise<Reported[]>;
}

function dispatcher(ctx: ActionCtx, runId: Id<"runs">, config: ReturnType<typeof brainConfig>, seen: Set<string>, log: (line: string) => void): Dispatcher {
  return {
    one: (call, scope) => dispatchCall(ctx, runId, call, config, seen, log, scope),
    together: (calls, scope) => dispatchTogether(ctx, runId, calls, config, seen, log, scope),
  };
}

/** A call as its `tool_call` event names it (a native call with its id). */
function toolStart(index: number, call: ParsedToolCall) {
  return { index, name: call.name, args: JSON.stringify(call.args ?? null), ...(call.id === undefined ? {} : { callId: call.id }) };
}

/**
 * The calls of a reply, by the department's mode: its native calls (unless
 * the mode is `text`), else, unless the mode is `native`, the `[TOOL: …]`
 * calls in its text. `wireCalls` is set when the calls are native: their
 * results then go back as `tool` messages paired by id.
 */
function replyCalls(reply: { content: string; calls: WireToolCall[] }, mode: ToolCallMode): { calls: ParsedToolCall[]; wireCalls?: WireToolCall[] } {
  if (reply.calls.length > 0 && mode !== "text") return { calls: nativeToolCalls(reply.calls, toolNameOfWire), wireCalls: reply.calls };
  return { calls: mode === "native" ? [] : parseToolCalls(reply.content) };
}

/** What the model reads after its last tool round in native mode (the text path says it in its results message). */
export const FINAL_ROUND_LINE = "You have used all your tool calls for this turn: now reply to the thread in words, without tools.";

/**
 * The conversation after a reply whose calls ran: for native calls, the
 * assistant message with its `tool_calls` and one `tool` message per call,
 * paired by id, in the calls' order (every call has a result: run, refused,
 * denied, invalid or settled after a pause); for `[TOOL: …]` calls, the
 * reply and the results message.
 */
function afterReply(content: string, wireCalls: WireToolCall[] | undefined, observations: readonly Observation[], final: boolean): ChatMessage[] {
  if (wireCalls === undefined) return [{ role: "assistant", content }, observationsMessage([...observations], final)];
  const byId = new Map(observations.flatMap((o) => (o.callId === undefined ? [] : [[o.callId, o] as const])));
  return [
    { role: "assistant", content, toolCalls: wireCalls },
    ...wireCalls.map((call, i): ChatMessage => {
      const observation = byId.get(call.id) ?? observations[i];
      return { role: "tool", toolCallId: call.id, content: observation === undefined ? "not run" : toolMessageContent(observation) };
    }),
    ...(final ? [{ role: "user" as const, content: FINAL_ROUND_LINE }] : []),
  ];
}

/** A conversation message as a pause keeps it (validators vStoredMessage), and back. */
function toStored(message: ChatMessage): RunPause["conversation"][number] {
  if (message.role === "tool") return { role: "tool", content: message.content, toolCallId: message.toolCallId };
  if (message.role === "assistant") return { role: "assistant", content: message.content, ...(message.toolCalls === undefined ? {} : { toolCalls: message.toolCalls }) };
  return { role: "user", content: message.content };
}

function fromStored(message: RunPause["conversation"][number]): ChatMessage {
  if (message.role === "tool") return { role: "tool", content: message.content, toolCallId: message.toolCallId ?? "" };
  if (message.role === "assistant") return { role: "assistant", content: message.content, ...(message.toolCalls === undefined ? {} : { toolCalls: message.toolCalls }) };
  return { role: "user", content: message.content };
}

/** A call that waits for a person, with the results of the reply's calls before it. */
interface Paused {
  request: PauseRequest;
  index: number;
  call: { name: string; args: string; id?: string };
  before: Observation[];
}

/** Where a reply stands when one of its calls pauses: what the run resumes from. */
type ReplyPoint = Pick<RunPause, "conversation" | "round" | "nextIndex" | "reply" | "replyCalls">;

/** The run's pause state for `paused`, a call of the reply at `at` (nothing after it has run). */
function pauseState(at: ReplyPoint, paused: Paused, seen: ReadonlySet<string>) {
  const { conversation, round, nextIndex, reply, replyCalls } = at;
  const state = {
    conversation,
    round,
    nextIndex,
    reply,
    ...(replyCalls === undefined ? {} : { replyCalls }),
    index: paused.index,
    call: paused.call,
    before: paused.before,
    after: [],
    seen: [...seen],
  };
  return { state, request: paused.request };
}

/**
 * The calls of a paused reply after the paused one, and the paused call's
 * place in its reply (the per-reply limit counts from the reply's first
 * call). A pause written before calls ran after resuming kept their refusals
 * in `after`: those are not run again.
 */
function callsAfterPause(pause: Pick<RunPause, "reply" | "replyCalls" | "index" | "nextIndex" | "after">): { rest: ParsedToolCall[]; offset: number } {
  const calls = pause.replyCalls === undefined ? parseToolCalls(pause.reply) : nativeToolCalls(pause.replyCalls, toolNameOfWire);
  const offset = pause.index - (pause.nextIndex - calls.length);
  if (pause.after.length > 0 || offset < 0 || offset >= calls.length) return { rest: [], offset: Math.max(0, offset) };
  return { rest: calls.slice(offset + 1), offset };
}

/**
 * Runs a reply's tool calls in order, each announced by `tool_call` first
 * (the first by `endReply` or by the paused call's result, each next one by
 * the previous call's `endToolCall`, in the same write), its result written
 * after it ran. Consecutive calls that may run together (two delegations in
 * a row) run in one transaction when the first of them is reached; their
 * results are then written one by one as the others'. Calls beyond
 * MAX_TOOL_CALLS_PER_REPLY in the reply (`firstOffset` is the first call's
 * place in it) are refused, as the dispatcher would. A call that waits for a
 * person pauses the reply there: the calls after it run once the run resumes.
 *
 * @throws Stopped when the run was stopped before a call.
 */
async function runTools(
  ctx: ActionCtx,
  writer: Writer,
  calls: ParsedToolCall[],
  { firstIndex, firstOffset, scope }: { firstIndex: number; firstOffset: number; scope?: DispatchScopeRead },
  dispatch: Dispatcher,
): Promise<{ observations: Observation[]; paused: Paused | null }> {
  const observations: Observation[] = [];
  /** The scope read by the write that announced the first call: its dispatch reads nothing more; every later call reads afresh. */
  let announced = scope;
  /** Results of calls that ran together with an earlier one, for the calls next in line. */
  let ranAlready: Reported[] = [];
  for (const [i, call] of calls.entries()) {
    const index = firstIndex + i;
    let result: Observation;
    let recorded: CallRecord | undefined;
    if (firstOffset + i >= MAX_TOOL_CALLS_PER_REPLY) {
      const text = `not run: at most ${MAX_TOOL_CALLS_PER_REPLY} tool calls per reply`;
      await refuse(ctx, writer.runId, call, text, `more than ${MAX_TOOL_CALLS_PER_REPLY} tool calls in one reply`);
      result = { tool: call.name, text };
    } else {
      const read = announced;
      announced = undefined;
      if (ranAlready.length === 0) {
        const within = calls.slice(i, i + MAX_TOOL_CALLS_PER_REPLY - (firstOffset + i));
        if (opensWithCallsTogether(within)) ranAlready = await dispatch.together(within, read);
      }
      const dispatched = ranAlready.shift() ?? (await dispatch.one(call, read));
      // Its result is written when the person responds; the calls after it wait with it.
      if ("pause" in dispatched) {
        const paused = { name: call.name, args: toolStart(index, call).args, ...(call.id === undefined ? {} : { id: call.id }) };
        return { observations: [], paused: { request: dispatched.pause, index, call: paused, before: observations } };
      }
      ({ observation: result, recorded } = dispatched);
    }
    if (call.id !== undefined) result = { ...result, callId: call.id };
    observations.push(result);
    const next = calls.at(i + 1);
    const verdict = await ctx.runMutation(internal.brain.writes.endToolCall, {
      ...writer,
      index,
      name: call.name,
      observation: result.text,
      ...(recorded === undefined ? {} : { recorded }),
      ...(next === undefined ? {} : { next: toolStart(index + 1, next) }),
    });
    if (verdict === "aborted") {
      // Calls that ran together with this one did run: their results are written too.
      for (const [j, { observation, recorded: record }] of ranAlready.entries()) {
        await ctx.runMutation(internal.brain.writes.endToolCall, { ...writer, index: index + 1 + j, name: calls[i + 1 + j].name, observation: observation.text, recorded: record });
      }
      throw new Stopped();
    }
  }
  return { observations, paused: null };
}

async function refuse(ctx: ActionCtx, runId: Id<"runs">, call: ParsedToolCall, observation: string, guard: string) {
  await ctx.runMutation(internal.brain.writes.recordToolCall, {
    runId,
    record: { name: call.name, args: JSON.stringify(call.args ?? null), outcome: "refused", observation, at: Date.now() },
    delegated: false,
    guard,
  });
}
