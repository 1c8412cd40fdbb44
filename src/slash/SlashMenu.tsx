import { useContext, useEffect, useState, type KeyboardEvent } from "react";
import { cn } from "../lib/cn";
import { listboxKeyDown } from "../lib/listbox";
import { argumentCompletion } from "./arguments";
import { SlashInsertContext } from "./insert";
import { matchSlashCommands, slashQuery, type SlashCommandItem } from "./slash";

/**
 * One line of the `/` list: a command (its name, argument hint and
 * description) or a value for the argument being typed (an agent, a
 * status). Picking it leaves `text` in the composer with the caret at `caret`.
 */
export type SlashMenuItem = { key: string; label: string; hint: string; description: string; department: boolean; text: string; caret: number };

function commandItem(item: SlashCommandItem): SlashMenuItem {
  const text = pickedText(item);
  return { key: item.name, label: `/${item.name}`, hint: item.argumentHint, description: item.description, department: item.source === "department", text, caret: text.length };
}

/** Most commands the list shows at once; typing more of the name narrows it. */
export const MAX_LISTED = 50;

/**
 * The `/` autocomplete both composers share: open while the text up to the
 * caret is `/` and part of a name, or the argument of a command that names
 * agents or a status (`/assign Dev B`); arrow keys move, Enter or Tab picks
 * (inserting `/name ` or the value), Escape closes it until what is typed changes.
 */
export function useSlashMenu(text: string, caret: number, commands: readonly SlashCommandItem[] | undefined, agents: readonly string[] = []) {
  const name = commands === undefined ? null : slashQuery(text, caret);
  const argument = name !== null || commands === undefined ? null : argumentCompletion(text, caret, commands, agents);
  // What is being completed, as a key: a new one starts from the top of the list, and Escape closes only it.
  const query = name ?? (argument === null ? null : `${argument.from}:${text.slice(argument.from, caret)}`);
  const [selection, setSelection] = useState<{ query: string | null; index: number }>({ query: null, index: 0 });
  const [dismissed, setDismissed] = useState<string | null>(null);
  const matches: SlashMenuItem[] =
    query === null || query === dismissed || commands === undefined
      ? []
      : name !== null
        ? matchSlashCommands(commands, name).map(commandItem)
        : argument!.choices.map(({ value, description }) => {
            const picked = `${text.slice(0, argument!.from)}${value} `;
            return { key: value, label: value, hint: "", description, department: false, text: `${picked}${text.slice(caret).trimStart()}`, caret: picked.length };
          });
  // A long registry is narrowed by typing; the list itself stays short (and quick to render).
  const items = matches.length > MAX_LISTED ? matches.slice(0, MAX_LISTED) : matches;
  const open = items.length > 0;
  // A new name typed starts from the top of the list.
  const active = selection.query === query ? Math.min(selection.index, Math.max(0, items.length - 1)) : 0;

  /** Handles the key when the list is open; true when it did (the composer then does nothing else). */
  function onKeyDown(event: KeyboardEvent, pick: (item: SlashMenuItem) => void): boolean {
    return listboxKeyDown(event, { active, count: items.length }, {
      move: (index) => setSelection({ query, index }),
      pick: (index) => pick(items[index]),
      dismiss: () => setDismissed(query),
    });
  }

  // A name typed in full (/stop) already says what it does: its preview shows even while the list is open.
  const previewable = !open || (name !== null && items.some((item) => item.key === name));
  return {
    open,
    items,
    /** Values for an argument rather than command names. */
    forArgument: argument !== null,
    more: matches.length - items.length,
    active,
    setActive: (index: number) => setSelection({ query, index }),
    onKeyDown,
    previewable,
  };
}

/** The text a picked command leaves in the composer. */
export function pickedText(item: SlashCommandItem): string {
  return `/${item.name} `;
}

type MenuProps = {
  id: string;
  items: readonly SlashMenuItem[];
  /** The list holds values for an argument (agents, statuses), not commands. */
  forArgument?: boolean;
  /** Matching commands not listed. */
  more?: number;
  active: number;
  onPick: (item: SlashMenuItem) => void;
  onHover: (index: number) => void;
};

export const slashOptionId = (listId: string, index: number) => `${listId}-slash-${index}`;

/** The list itself: name, argument hint and description per command. */
export function SlashMenu({ id, items, forArgument = false, more = 0, active, onPick, onHover }: MenuProps) {
  return (
    <ul
      id={id}
      role="listbox"
      aria-label={forArgument ? "Argument values" : "Slash commands"}
      data-testid="slash-menu"
      className="absolute bottom-full left-0 z-10 mb-1 max-h-64 w-full max-w-md overflow-y-auto rounded-lg bg-white py-1 shadow-lg ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-700"
    >
      {items.map((item, i) => (
        <li
          key={item.key}
          id={slashOptionId(id, i)}
          role="option"
          aria-selected={i === active}
          data-command={item.key}
          // mousedown, not click: keep focus (and the caret) in the textarea.
          onMouseDown={(event) => {
            event.preventDefault();
            onPick(item);
          }}
          onMouseEnter={() => onHover(i)}
          className={cn(
            "flex cursor-pointer flex-col px-3 py-1.5 text-sm",
            i === active ? "bg-indigo-50 text-indigo-900 dark:bg-indigo-500/20 dark:text-indigo-100" : "text-slate-700 dark:text-slate-200",
          )}
        >
          <span className="flex items-baseline gap-2">
            <span className={cn("font-medium", !forArgument && "font-mono")}>{item.label}</span>
            {item.hint !== "" && <span className="truncate font-mono text-xs text-slate-600 dark:text-slate-400">{item.hint}</span>}
            {item.department && <span className="ml-auto shrink-0 text-[10px] uppercase tracking-wide text-slate-600 dark:text-slate-400">department</span>}
          </span>
          <span className="truncate text-xs text-slate-600 dark:text-slate-400">{item.description}</span>
        </li>
      ))}
      {more > 0 && (
        <li role="presentation" className="px-3 py-1.5 text-xs text-slate-500 dark:text-slate-400">
          {more} more: keep typing the name
        </li>
      )}
    </ul>
  );
}

/** Lets the command palette put a command in this composer (src/slash/insert.ts) while it is mounted. */
export function useSlashInsert(enabled: boolean, insert: (text: string) => void) {
  const inserts = useContext(SlashInsertContext);
  useEffect(() => (enabled && inserts !== null ? inserts.register(insert) : undefined), [enabled, inserts, insert]);
}
