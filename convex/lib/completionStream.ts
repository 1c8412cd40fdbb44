/**
 * A chat completion's answer, from the wire to plain values: the pieces of a
 * streamed answer (`chat.completion.chunk`s) or a whole JSON completion become
 * text and a list of native tool calls, each with its id, wire name and
 * argument text. The run loop and the records never see a wire shape.
 *
 * Streamed `tool_calls` are assembled by `index`: the id and name come in a
 * call's first delta, its arguments in many pieces, several calls may be
 * interleaved. Servers differ (Ollama sends each call whole, all at index 0,
 * with ids missing or repeated), so a delta that names a function at an index
 * whose call already has a name and complete arguments, or that carries a
 * different id, opens a new call instead of being merged into the last one.
 */

/** A native tool call as the model made it: its id (made up when the server sent none), wire name and argument text. */
export interface WireToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** What an answer said: its text, refusal, tool calls in order, why it finished and its usage. */
export interface AnswerSoFar {
  content: string;
  refusal: string;
  calls: WireToolCall[];
  /** `finish_reason` of the first choice once sent (`stop`, `tool_calls`, `length`…); null while it has not come. */
  finishReason: string | null;
  usage: { prompt_tokens?: unknown; completion_tokens?: unknown } | undefined;
}

interface Slot {
  call: WireToolCall;
  /** Its arguments are done: a whole JSON object, another call took its index, or the answer finished. */
  ready: boolean;
}

/**
 * Reads a streamed answer chunk by chunk. `push` takes each parsed chunk and
 * returns its text and the calls that became complete with it, in the order
 * the model made them (a call is complete once its arguments are a whole
 * JSON object, another call takes its index, or the answer finishes, and
 * every call before it is complete); `end` returns the whole answer.
 */
export class CompletionAssembler {
  private readonly answer: AnswerSoFar = { content: "", refusal: "", calls: [], finishReason: null, usage: undefined };
  /** The slot each wire index currently writes to. */
  private readonly byIndex = new Map<number, Slot>();
  private readonly slots: Slot[] = [];
  /** How many calls were reported complete (always the first ones). */
  private reported = 0;
  private readonly usedIds = new Set<string>();
  /** Chunks that were chat completion chunks (had `choices`). */
  chunks = 0;

  /** Text that came with this chunk ("" for none), and the calls it completed. */
  push(chunk: unknown): { text: string; completed: WireToolCall[] } {
    if (typeof chunk !== "object" || chunk === null) return { text: "", completed: [] };
    const { choices, usage } = chunk as { choices?: unknown; usage?: unknown };
    if (typeof usage === "object" && usage !== null) this.answer.usage = usage as AnswerSoFar["usage"];
    if (!Array.isArray(choices)) return { text: "", completed: [] };
    this.chunks += 1;
    const choice = choices.find((c: { index?: unknown } | null) => (c?.index ?? 0) === 0) as { delta?: unknown; message?: unknown; finish_reason?: unknown } | undefined;
    if (choice === undefined) return { text: "", completed: [] };
    // Some servers put a whole `message` in a chunk instead of a `delta`.
    const delta = (typeof choice.delta === "object" && choice.delta !== null ? choice.delta : choice.message) as
      | { content?: unknown; refusal?: unknown; tool_calls?: unknown }
      | undefined;
    const text = typeof delta?.content === "string" ? delta.content : "";
    this.answer.content += text;
    if (typeof delta?.refusal === "string") this.answer.refusal += delta.refusal;
    if (Array.isArray(delta?.tool_calls)) {
      for (const [position, piece] of delta.tool_calls.entries()) this.toolDelta(piece, position);
    }
    if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") {
      this.answer.finishReason = choice.finish_reason;
      for (const slot of this.slots) slot.ready = true;
    }
    return { text, completed: this.newlyComplete() };
  }

  /** The answer as it stands, every call complete; also the calls completed only now. */
  end(): { answer: AnswerSoFar; completed: WireToolCall[] } {
    for (const slot of this.slots) slot.ready = true;
    const completed = this.newlyComplete();
    return { answer: { ...this.answer, calls: this.slots.map((s) => s.call) }, completed };
  }

  /** Characters of the answer so far (text and call arguments), for a person told where it was cut. */
  get received(): number {
    return this.answer.content.length + this.slots.reduce((sum, s) => sum + s.call.name.length + s.call.arguments.length, 0);
  }

  private toolDelta(piece: unknown, position: number): void {
    if (typeof piece !== "object" || piece === null) return;
    const { index, id, function: fn } = piece as { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } };
    const at = typeof index === "number" && Number.isInteger(index) ? index : position;
    const name = typeof fn?.name === "string" ? fn.name : "";
    const args = typeof fn?.arguments === "string" ? fn.arguments : typeof fn?.arguments === "object" && fn.arguments !== null ? JSON.stringify(fn.arguments) : "";
    const givenId = typeof id === "string" && id !== "" ? id : undefined;
    let slot = this.byIndex.get(at);
    const opensNew =
      slot === undefined ||
      (givenId !== undefined && slot.call.id !== givenId && !slot.call.id.startsWith(`${givenId}~`)) ||
      (name !== "" && slot.call.name !== "" && (slot.ready || isWholeObject(slot.call.arguments)));
    if (opensNew) {
      // The call this index wrote to so far is done: a new one begins there.
      if (slot !== undefined) slot.ready = true;
      slot = { call: { id: this.freshId(givenId), name, arguments: "" }, ready: false };
      this.slots.push(slot);
      this.byIndex.set(at, slot);
    } else if (slot!.call.name === "" && name !== "") {
      slot!.call.name = name;
    }
    slot!.call.arguments += args;
    if (slot!.call.name !== "" && isWholeObject(slot!.call.arguments)) slot!.ready = true;
  }

  private freshId(given: string | undefined): string {
    let id = given ?? `call_${this.slots.length}`;
    // Results are paired with calls by id: a repeated id is made unique.
    for (let n = 2; this.usedIds.has(id); n++) id = `${given ?? "call"}~${n}`;
    this.usedIds.add(id);
    return id;
  }

  /** The calls not reported yet that are ready, up to the first that is not: in order, never one before an earlier call. */
  private newlyComplete(): WireToolCall[] {
    const out: WireToolCall[] = [];
    while (this.reported < this.slots.length && this.slots[this.reported].ready) {
      out.push(this.slots[this.reported].call);
      this.reported += 1;
    }
    return out;
  }
}

/** Whether `text` is a whole JSON object (cheap look first: it must end in `}`). */
function isWholeObject(text: string): boolean {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{") || !trimmed.endsWith("}")) return false;
  try {
    JSON.parse(trimmed);
    return true;
  } catch {
    return false;
  }
}

/** A whole JSON chat completion (`choices[0].message`, with text and/or `tool_calls`) as an answer; null when `text` is not one. */
export function completionFromJson(text: string): AnswerSoFar | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null) return null;
  const { choices, usage } = parsed as { choices?: unknown; usage?: unknown };
  if (!Array.isArray(choices) || choices.length === 0) return null;
  const choice = choices[0] as { message?: unknown; finish_reason?: unknown } | null;
  const message = choice?.message;
  if (typeof message !== "object" || message === null) return null;
  const { content, refusal, tool_calls } = message as { content?: unknown; refusal?: unknown; tool_calls?: unknown };
  if (typeof content !== "string" && content !== null && content !== undefined) return null;
  const assembler = new CompletionAssembler();
  assembler.push({ choices: [{ index: 0, delta: { content: typeof content === "string" ? content : "", refusal, tool_calls }, finish_reason: choice?.finish_reason ?? "stop" }], usage });
  return assembler.end().answer;
}

/** A tool as a request's `tools` carries it: a function with a wire name, a description and its arguments' JSON Schema. */
export interface FunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}
