import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { initials } from "../board/initials";
import { optionFor, STATUS_OPTIONS } from "../board/options";
import { Avatar } from "../components/ui/Avatar";
import { Dialog } from "../components/ui/Modal";
import { cn } from "../lib/cn";
import { matchSlashCommands, type SlashCommandItem } from "../slash/slash";

export type PaletteResults = FunctionReturnType<typeof api.search.palette>;
/** Files whose name or text matches (searchFiles), each with where it was posted. */
export type PaletteFiles = FunctionReturnType<typeof api.channelFiles.search>;

/** One thing the palette can jump to. */
export type PaletteItem =
  | { kind: "task"; id: Id<"tasks">; label: string; detail: string }
  | { kind: "agent"; id: Id<"agents">; sessionKey: string; label: string; detail: string }
  | { kind: "channel"; id: Id<"channels">; label: string; detail: string }
  | { kind: "run"; id: Id<"runs">; label: string; detail: string }
  /** Opens the conversation or the task the file was posted in. */
  | { kind: "file"; id: Id<"_storage">; label: string; detail: string; where: { channelId: Id<"channels"> } | { taskId: Id<"tasks"> } }
  | { kind: "command"; id: string; label: string; detail: string };

const KIND_LABEL: Record<PaletteItem["kind"], string> = { task: "Task", agent: "Agent", channel: "Channel", run: "Run", file: "File", command: "Command" };
const KIND_BADGE: Record<Exclude<PaletteItem["kind"], "agent" | "command">, string> = { task: "T", channel: "#", run: "R", file: "F" };

/** Slash commands matching the typed text: all of them after a leading `/`, else by name. */
function commandItems(commands: readonly SlashCommandItem[], text: string): PaletteItem[] {
  const typed = text.trim();
  if (typed === "") return [];
  const query = typed.startsWith("/") ? typed.slice(1).split(/\s/)[0] : typed;
  return matchSlashCommands(commands, query.toLowerCase()).map((c) => ({ kind: "command" as const, id: c.name, label: `/${c.name}`, detail: c.description }));
}

/** A file found, to open where it was posted. */
function fileItem(file: PaletteFiles[number]): PaletteItem | null {
  const where = file.channelId !== undefined ? { channelId: file.channelId } : file.taskId !== undefined ? { taskId: file.taskId } : null;
  return where === null ? null : { kind: "file", id: file.fileId, label: file.name, detail: `in ${file.place}`, where };
}

/** Tasks first (what you most often jump to), then agents, channels, runs, files and slash commands (only those, after a `/`). */
export function paletteItems(results: PaletteResults | undefined, commands: readonly SlashCommandItem[] = [], text = "", files: PaletteFiles = []): PaletteItem[] {
  const slash = commandItems(commands, text);
  if (text.trim().startsWith("/")) return slash;
  if (results === undefined) return [];
  return [
    ...results.tasks.map((task) => ({ kind: "task" as const, id: task._id, label: task.title, detail: optionFor(STATUS_OPTIONS, task.status).label })),
    ...results.agents.map((agent) => ({ kind: "agent" as const, id: agent._id, sessionKey: agent.sessionKey, label: agent.name, detail: agent.role })),
    ...results.channels.map((channel) => ({ kind: "channel" as const, id: channel._id, label: channel.title, detail: channel.kind === "dm" ? "DM" : "channel" })),
    ...results.runs.map((run) => ({ kind: "run" as const, id: run._id, label: `${run.agentName} on “${run.taskTitle}”`, detail: run.status })),
    ...files.map(fileItem).filter((item) => item !== null),
    ...slash,
  ];
}

type ViewProps = {
  text: string;
  onText: (text: string) => void;
  /** `undefined` while the server answers. */
  results: PaletteResults | undefined;
  onPick: (item: PaletteItem) => void;
  onClose: () => void;
  /** Slash commands the palette offers (picking one puts it in the composer on screen). */
  commands?: readonly SlashCommandItem[];
  /** Files matching the text (searchFiles). */
  files?: PaletteFiles;
};

/** The palette as pure props: a search box over a list that arrows move through and Enter opens. */
export function CommandPaletteView({ text, onText, results, onPick, onClose, commands = [], files = [] }: ViewProps) {
  const id = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  // After the dialog's own focus handling (a parent's effect runs after its children's): typing goes to the box.
  useEffect(() => inputRef.current?.focus(), []);
  const items = paletteItems(results, commands, text, files);
  const [active, setActive] = useState(0);
  const current = Math.min(active, Math.max(0, items.length - 1));

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (items.length === 0) return;
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((current + step + items.length) % items.length);
    } else if (event.key === "Enter" && items[current] !== undefined) {
      event.preventDefault();
      onPick(items[current]);
    }
  }

  return (
    <Dialog onClose={onClose} labelledBy={`${id}-label`} className="sm:max-w-xl sm:self-start sm:mt-[12vh]">
      <div data-testid="command-palette" className="flex min-h-0 flex-col dark:bg-slate-900">
        <label id={`${id}-label`} htmlFor={`${id}-input`} className="sr-only">
          Jump to a task, agent, channel, run or file, or type / for a command
        </label>
        <input
          id={`${id}-input`}
          ref={inputRef}
          autoFocus
          role="combobox"
          aria-expanded="true"
          aria-controls={`${id}-list`}
          aria-activedescendant={items[current] ? `${id}-item-${current}` : undefined}
          autoComplete="off"
          placeholder="Jump to a task, agent, channel or run… / for commands"
          value={text}
          onChange={(event) => {
            onText(event.target.value);
            setActive(0);
          }}
          onKeyDown={onKeyDown}
          className="w-full rounded-t-2xl border-b border-slate-200 bg-transparent px-4 py-3.5 text-base text-slate-900 placeholder:text-slate-400 focus:outline-none dark:border-slate-700 dark:text-slate-100"
        />
        <ul id={`${id}-list`} role="listbox" aria-label="Results" className="max-h-[50vh] overflow-y-auto p-2">
          {results === undefined && items.length === 0 ? (
            <li className="px-3 py-2 text-sm text-slate-500 dark:text-slate-400">Searching…</li>
          ) : items.length === 0 ? (
            <li className="px-3 py-2 text-sm text-slate-500 dark:text-slate-400">Nothing matches “{text.trim()}”.</li>
          ) : (
            items.map((item, index) => (
              <li
                key={`${item.kind}-${item.id}`}
                id={`${id}-item-${index}`}
                role="option"
                aria-selected={index === current}
                data-testid="palette-item"
                data-kind={item.kind}
                onMouseMove={() => setActive(index)}
                onClick={() => onPick(item)}
                className={cn(
                  "flex cursor-pointer items-center gap-3 rounded-lg px-3 py-2 text-sm",
                  index === current ? "bg-indigo-50 text-indigo-900 dark:bg-indigo-500/20 dark:text-indigo-100" : "text-slate-800 dark:text-slate-200",
                )}
              >
                {item.kind === "agent" ? (
                  <Avatar initials={initials(item.label)} className="size-6" />
                ) : item.kind === "command" ? (
                  <span aria-hidden="true" className="inline-flex size-6 items-center justify-center rounded-md bg-indigo-50 font-mono text-xs font-semibold text-indigo-700 dark:bg-indigo-500/20 dark:text-indigo-200">
                    /
                  </span>
                ) : (
                  <span aria-hidden="true" className="inline-flex size-6 items-center justify-center rounded-md bg-slate-100 text-[10px] font-semibold text-slate-500 dark:bg-slate-800 dark:text-slate-300">
                    {KIND_BADGE[item.kind]}
                  </span>
                )}
                <span className="min-w-0 flex-1 truncate" title={item.label}>
                  {item.label}
                </span>
                <span className="shrink-0 text-xs text-slate-600 dark:text-slate-300">{`${KIND_LABEL[item.kind]} · ${item.detail}`}</span>
              </li>
            ))
          )}
        </ul>
        <p className="border-t border-slate-100 px-4 py-2 text-xs text-slate-500 dark:border-slate-800 dark:text-slate-400">
          ↑↓ to move · Enter to open · Esc to close
        </p>
      </div>
    </Dialog>
  );
}

type Props = { departmentId: Id<"departments">; onPick: (item: PaletteItem) => void; onClose: () => void };

/** A query's last answer, kept while the next one is on its way (rather than flashing "Searching…"). */
function useLastAnswer<T>(answer: T | undefined): T | undefined {
  const [last, setLast] = useState<T | undefined>(answer);
  if (answer !== undefined && answer !== last) setLast(answer);
  return answer ?? last;
}

/** The live palette: `search.palette` and `channelFiles.search` (files) as you type. */
export function CommandPalette({ departmentId, onPick, onClose }: Props) {
  const [text, setText] = useState("");
  const results = useLastAnswer(useQuery(api.search.palette, { departmentId, text }));
  const commands = useQuery(api.slashCommands.getSlashCommands, { departmentId })?.commands;
  const typed = text.trim();
  const files = useLastAnswer(useQuery(api.channelFiles.search, typed === "" || typed.startsWith("/") ? "skip" : { departmentId, query: typed }));
  return <CommandPaletteView text={text} onText={setText} results={results} onPick={onPick} onClose={onClose} commands={commands} files={typed === "" ? [] : (files ?? [])} />;
}
