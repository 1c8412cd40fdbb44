import { STATUS_OPTIONS } from "../board/options";
import type { SlashCommandItem } from "./slash";

/** One value the argument being typed can take. */
export type ArgumentChoice = { value: string; description: string };

/** The argument under the caret: where it starts in the text, and the values it can be. */
export type ArgumentCompletion = { from: number; choices: ArgumentChoice[] };

/** Most words an agent's name is looked for in. */
const MAX_NAME_WORDS = 6;

const lower = (text: string) => text.toLowerCase().replace(/\s+/g, " ");

/** Each word's start in `text`. */
function wordStarts(text: string): number[] {
  const starts: number[] = [];
  for (const match of text.matchAll(/\S+/g)) starts.push(match.index);
  return starts;
}

/**
 * The agent name being typed at the end of `args` (a command's arguments up
 * to the caret): the longest run of last words that begins a roster name
 * (`Dev B` → Dev Bot), or nothing typed yet after a space. `first` asks for
 * the first argument only (/delegate's agent, before its title).
 */
function agentCompletion(args: string, argsAt: number, agents: readonly string[], first: boolean): ArgumentCompletion | null {
  const starts = wordStarts(args);
  const fromWords = first ? starts.slice(0, 1) : starts.slice(-MAX_NAME_WORDS);
  for (const start of fromWords) {
    const typed = lower(args.slice(start));
    const choices = agents.filter((name) => lower(name).startsWith(typed));
    if (choices.length === 0) continue;
    // Typed in full: nothing left to complete (Enter is free to do what it does).
    if (choices.length === 1 && lower(choices[0]) === typed.trimEnd()) return null;
    // An agent already named before this one is not offered twice.
    const earlier = lower(args.slice(0, start));
    const fresh = choices.filter((name) => !earlier.includes(lower(name)));
    if (fresh.length === 0) continue;
    return { from: argsAt + start, choices: fresh.map((value) => ({ value, description: "Agent" })) };
  }
  const nothingYet = args.trim() === "";
  if (!nothingYet && (first || !/\s$/.test(args))) return null;
  const already = lower(args);
  return { from: argsAt + args.length, choices: agents.filter((name) => !already.includes(lower(name))).map((value) => ({ value, description: "Agent" })) };
}

function statusCompletion(args: string, argsAt: number): ArgumentCompletion | null {
  const typed = args.trim().toLowerCase().replace(/[\s-]+/g, "_");
  const choices = STATUS_OPTIONS.filter((option) => option.value.startsWith(typed));
  if (choices.length === 0 || (choices.length === 1 && choices[0].value === typed)) return null;
  return { from: argsAt + (args.length - args.trimStart().length), choices: choices.map(({ value, label }) => ({ value, description: label })) };
}

/**
 * What to offer while the caret is in the argument of a command that names
 * agents (/assign, /delegate) or a status (/status): the values that fit what
 * is typed so far, and where the value starts, so picking one replaces it.
 * Null anywhere else.
 */
export function argumentCompletion(text: string, caret: number, commands: readonly SlashCommandItem[], agents: readonly string[]): ArgumentCompletion | null {
  const before = text.slice(0, caret);
  const match = /^\/(\S+)(\s+)([\s\S]*)$/.exec(before);
  if (match === null) return null;
  const command = commands.find((c) => c.name === match[1].toLowerCase());
  if (command?.argument === undefined) return null;
  const argsAt = 1 + match[1].length + match[2].length;
  const args = match[3];
  if (command.argument === "status") return statusCompletion(args, argsAt);
  return agentCompletion(args, argsAt, agents, command.argument === "agent");
}
