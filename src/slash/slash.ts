import type { ReactNode } from "react";
import { matchCommands } from "../../convex/lib/slashCommands";

/** One command as the composers list it (slashCommands.getSlashCommands). */
export interface SlashCommandItem {
  name: string;
  description: string;
  argumentHint: string;
  kind: "action" | "prompt";
  source: "builtin" | "global" | "department";
  /** What the first argument names, for completion (built-ins only). */
  argument?: "agent" | "agents" | "status";
  /** The composers it runs in (slashCommands.getSlashCommands); all when absent. */
  places?: ReadonlyArray<"task" | "chat" | "channel">;
}

export type SlashResult = { ok: true; message: string; taskId?: string } | { ok: false; error: string };

/** What a composer needs to offer slash commands; without it, `/` is just text. */
export interface SlashSupport {
  /** `undefined` while loading. */
  commands: readonly SlashCommandItem[] | undefined;
  /** Resolves and runs the command (slashCommands.resolveSlashCommand). */
  run: (text: string) => Promise<SlashResult>;
  /** The live preview of what sending `text` would do. */
  renderPreview?: (text: string) => ReactNode;
  /** The squad's names, for completing an argument that names agents. */
  agents?: readonly string[];
}

/** The command name being typed: the text up to the caret is `/` and a name, nothing else. */
export function slashQuery(text: string, caret: number): string | null {
  const match = /^\/([^\s/]*)$/.exec(text.slice(0, caret));
  return match === null ? null : match[1].toLowerCase();
}

/** Whether the composer's text is a command to run rather than a message to post. */
export function isSlashText(text: string): boolean {
  return /^\/\S/.test(text.trimStart()) || text.trim() === "/";
}

export function matchSlashCommands(commands: readonly SlashCommandItem[], query: string): SlashCommandItem[] {
  return matchCommands(commands, query);
}
