import { useId, type KeyboardEvent } from "react";
import { Button } from "../components/ui/Button";
import { InlineError, onSubmitted, TextArea } from "../components/ui/Field";
import type { Id } from "../../convex/_generated/dataModel";
import { CompletionList, completionOptionId, useCompletions, type TaskLinkSupport } from "../composer/useCompletions";
import { SlashMenu, slashOptionId } from "../slash/SlashMenu";
import { SlashStatus } from "../slash/useSlashSend";
import type { SlashSupport } from "../slash/slash";
import type { MentionCandidate } from "./mentions";
import { useSlashComposer } from "../slash/useSlashComposer";

type Props = {
  /** Who can be @mentioned: the department's agents and members. */
  candidates: readonly MentionCandidate[];
  /** Posts the message; rejects with the failure to show. */
  /** `clientMessageId`: the same for a retried send of one message (lib/useSend). */
  /** `taskLinks`: the tasks the text links with `#` (absent when none). */
  onSend: (content: string, clientMessageId: string, taskLinks?: Array<Id<"tasks">>) => Promise<unknown>;
  /** Slash commands (`/` at the start opens them); without it `/` is plain text. */
  slash?: SlashSupport;
  /** What `#` completes; without it `#` is plain text. */
  tasks?: TaskLinkSupport;
};

/**
 * The thread's message box. Ctrl+Enter (⌘+Enter on a Mac) sends. Typing `@`
 * and the start of a name opens a list of matching agents and members: arrow
 * keys move through it, Enter or Tab picks (inserting `@Full Name `), Escape
 * closes it without closing the drawer.
 */
export function Composer({ candidates, onSend, slash, tasks }: Props) {
  const { text, caret, setText, setCaret, textareaRef, write, onType, slashMenu, pickCommand, notice, sending, error, send: sendContent } = useSlashComposer(slash, (content, clientMessageId) => {
    const links = completions.links.map((task) => task._id as Id<"tasks">);
    return links.length > 0 ? onSend(content, clientMessageId, links) : onSend(content, clientMessageId);
  });
  const completions = useCompletions({ text, caret, candidates, tasks, suppressed: slashMenu.open, write });
  const listId = useId();
  const hintId = useId();

  function send() {
    sendContent(text.trim(), () => {
      setText("");
      completions.reset();
    });
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      send();
      return;
    }
    if (slashMenu.onKeyDown(event, pickCommand)) return;
    completions.onKeyDown(event);
  }

  const activeOption = slashMenu.open ? slashOptionId(listId, slashMenu.active) : completions.open ? completionOptionId(listId, completions.active) : undefined;

  return (
    <form
      className="flex flex-col gap-2"
      onSubmit={onSubmitted(send)}
    >
      {error && <InlineError>{error}</InlineError>}
      <div className="relative">
        {slashMenu.open && <SlashMenu id={listId} items={slashMenu.items} forArgument={slashMenu.forArgument} more={slashMenu.more} active={slashMenu.active} onPick={pickCommand} onHover={slashMenu.setActive} />}
        <CompletionList id={listId} completions={completions} />
        <TextArea
          ref={textareaRef}
          aria-label="Message"
          role="combobox"
          aria-expanded={completions.open || slashMenu.open}
          aria-controls={completions.open || slashMenu.open ? listId : undefined}
          aria-autocomplete="list"
          aria-activedescendant={activeOption}
          aria-describedby={hintId}
          rows={3}
          value={text}
          placeholder={slash === undefined ? "Write a message… @ to mention an agent or a teammate" : "Write a message… @ to mention, / for commands"}
          onChange={(event) => {
            onType(event.target.value, event.target.selectionStart);
            completions.onType(event.target.value);
          }}
          onSelect={(event) => setCaret(event.currentTarget.selectionStart)}
          onKeyDown={onKeyDown}
          onBlur={completions.onBlur}
          onFocus={completions.onFocus}
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
