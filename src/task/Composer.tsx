import { useId, useState, type KeyboardEvent } from "react";
import { Avatar } from "../components/ui/Avatar";
import { Button } from "../components/ui/Button";
import { InlineError, onSubmitted, TextArea } from "../components/ui/Field";
import { initials } from "../board/initials";
import { cn } from "../lib/cn";
import { SlashMenu, slashOptionId } from "../slash/SlashMenu";
import { SlashStatus } from "../slash/useSlashSend";
import type { SlashSupport } from "../slash/slash";
import { findMentionQuery, insertMention, matchCandidates, type MentionCandidate, type MentionQuery } from "./mentions";
import { useSlashComposer } from "../slash/useSlashComposer";

type Props = {
  /** Who can be @mentioned: the department's agents and members. */
  candidates: readonly MentionCandidate[];
  /** Posts the message; rejects with the failure to show. */
  /** `clientMessageId`: the same for a retried send of one message (lib/useSend). */
  onSend: (content: string, clientMessageId: string) => Promise<unknown>;
  /** Slash commands (`/` at the start opens them); without it `/` is plain text. */
  slash?: SlashSupport;
};

/**
 * The thread's message box. Ctrl+Enter (⌘+Enter on a Mac) sends. Typing `@`
 * and the start of a name opens a list of matching agents and members: arrow
 * keys move through it, Enter or Tab picks (inserting `@Full Name `), Escape
 * closes it without closing the drawer.
 */
export function Composer({ candidates, onSend, slash }: Props) {
  const { text, setText, setCaret, textareaRef, write, onType, slashMenu, pickCommand, notice, sending, error, send: sendContent } = useSlashComposer(slash, onSend);
  const [mention, setMention] = useState<MentionQuery | null>(null);
  const [active, setActive] = useState(0);
  // The `@` (by offset) whose list was closed with Escape; it stays closed until another `@`.
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const listId = useId();
  const hintId = useId();

  const suggestions = slashMenu.open || mention === null || mention.start === dismissedAt ? [] : matchCandidates(candidates, mention.query);
  const open = suggestions.length > 0;
  const activeIndex = Math.min(active, suggestions.length - 1);

  function track(value: string, caret: number) {
    setCaret(caret);
    const next = findMentionQuery(value, caret);
    if (next?.start !== mention?.start || next?.query !== mention?.query) setActive(0);
    setMention(next);
  }

  function pick(candidate: MentionCandidate) {
    if (mention === null) return;
    const result = insertMention(text, textareaRef.current?.selectionStart ?? text.length, mention, candidate.name);
    write(result.text, result.caret);
    setMention(null);
  }

  function send() {
    sendContent(text.trim(), () => {
      setText("");
      setMention(null);
    });
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      send();
      return;
    }
    if (slashMenu.onKeyDown(event, pickCommand)) return;
    if (!open) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((activeIndex + step + suggestions.length) % suggestions.length);
    } else if ((event.key === "Enter" || event.key === "Tab") && !event.shiftKey) {
      event.preventDefault();
      pick(suggestions[activeIndex]);
    } else if (event.key === "Escape") {
      // Handled here: the drawer around us sees defaultPrevented and stays open.
      event.preventDefault();
      setDismissedAt(mention?.start ?? null);
    }
  }

  const optionId = (i: number) => `${listId}-option-${i}`;
  const activeOption = slashMenu.open ? slashOptionId(listId, slashMenu.active) : open ? optionId(activeIndex) : undefined;

  return (
    <form
      className="flex flex-col gap-2"
      onSubmit={onSubmitted(send)}
    >
      {error && <InlineError>{error}</InlineError>}
      <div className="relative">
        {slashMenu.open && <SlashMenu id={listId} items={slashMenu.items} forArgument={slashMenu.forArgument} more={slashMenu.more} active={slashMenu.active} onPick={pickCommand} onHover={slashMenu.setActive} />}
        {open && (
          <ul
            id={listId}
            role="listbox"
            aria-label="People to mention"
            className="absolute bottom-full left-0 z-10 mb-1 max-h-60 w-full max-w-xs overflow-y-auto rounded-lg bg-white py-1 shadow-lg ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-700"
          >
            {suggestions.map((candidate, i) => (
              <li
                key={candidate.key}
                id={optionId(i)}
                role="option"
                aria-selected={i === activeIndex}
                // mousedown, not click: keep focus (and the caret) in the textarea.
                onMouseDown={(event) => {
                  event.preventDefault();
                  pick(candidate);
                }}
                onMouseEnter={() => setActive(i)}
                className={cn("flex cursor-pointer items-center gap-2 px-3 py-1.5 text-sm", i === activeIndex ? "bg-indigo-50 text-indigo-900 dark:bg-indigo-950/40 dark:text-indigo-300" : "text-slate-700 dark:text-slate-200")}
              >
                <Avatar
                  initials={initials(candidate.name)}
                  tone={candidate.kind}
                />
                <span className="min-w-0 flex-1 truncate font-medium">{candidate.name}</span>
                <span className="shrink-0 truncate text-xs text-slate-500 dark:text-slate-400">{candidate.detail}</span>
              </li>
            ))}
          </ul>
        )}
        <TextArea
          ref={textareaRef}
          aria-label="Message"
          role="combobox"
          aria-expanded={open || slashMenu.open}
          aria-controls={open || slashMenu.open ? listId : undefined}
          aria-autocomplete="list"
          aria-activedescendant={activeOption}
          aria-describedby={hintId}
          rows={3}
          value={text}
          placeholder={slash === undefined ? "Write a message… @ to mention an agent or a teammate" : "Write a message… @ to mention, / for commands"}
          onChange={(event) => {
            onType(event.target.value, event.target.selectionStart);
            setDismissedAt((at) => (at !== null && event.target.value[at] === "@" ? at : null));
            track(event.target.value, event.target.selectionStart);
          }}
          onSelect={(event) => track(event.currentTarget.value, event.currentTarget.selectionStart)}
          onKeyDown={onKeyDown}
          onBlur={() => setMention(null)}
          className="max-h-48 min-h-20"
        />
      </div>
      <SlashStatus slash={slash} text={text} menuOpen={!slashMenu.previewable} notice={notice} />
      <div className="flex items-center justify-between gap-3">
        <p id={hintId} className="text-xs text-slate-500 dark:text-slate-400">
          Markdown works. <kbd className="font-sans">Ctrl</kbd>/<kbd className="font-sans">⌘</kbd>+<kbd className="font-sans">Enter</kbd> sends.
        </p>
        <Button type="submit" disabled={sending || text.trim() === ""}>
          {sending ? "Sending…" : "Send"}
        </Button>
      </div>
    </form>
  );
}
