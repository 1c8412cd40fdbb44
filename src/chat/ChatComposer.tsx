import { useId, type KeyboardEvent } from "react";
import { Button } from "../components/ui/Button";
import { InlineError, onSubmitted, TextArea } from "../components/ui/Field";
import { cn } from "../lib/cn";
import { SlashMenu, slashOptionId } from "../slash/SlashMenu";
import { SlashNotice, SlashStatus } from "../slash/useSlashSend";
import type { SlashSupport } from "../slash/slash";
import { useSlashComposer } from "../slash/useSlashComposer";

type Props = {
  /** The server's limit; longer messages are cut to it (and marked) rather than refused. */
  maxMessageChars: number;
  /** Posts the message as @human; a rejection's message shows above the box. */
  onSend: (text: string, clientMessageId: string) => Promise<unknown>;
  /** Slash commands (`/` at the start opens them); without it `/` is plain text. */
  slash?: SlashSupport;
};

const count = new Intl.NumberFormat("en");

/**
 * The #maestro message box: Ctrl+Enter (⌘+Enter on a Mac) or Send posts,
 * plain Enter is a new line. It counts characters against the limit and says
 * so when a message will be truncated.
 */
export function ChatComposer({ maxMessageChars, onSend, slash }: Props) {
  const { text, setText, textareaRef, onType, setCaret, slashMenu, pickCommand, notice, dismissNotice, sending, error, send: sendContent } = useSlashComposer(slash, onSend);
  const counterId = useId();
  const listId = useId();
  // What will be sent, so the count matches what the server measures.
  const content = text.trim();
  const over = content.length > maxMessageChars;

  function send() {
    sendContent(content, () => setText(""));
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      send();
      return;
    }
    slashMenu.onKeyDown(event, pickCommand);
  }

  return (
    <form
      data-testid="chat-composer"
      className="flex flex-col gap-1 border-t border-slate-100 px-3 py-2 dark:border-slate-800"
      onSubmit={onSubmitted(send)}
    >
      {error && <InlineError className="px-2 py-1.5 text-xs">{error}</InlineError>}
      <div className="relative flex items-end gap-2">
        <SlashNotice notice={notice} onDismiss={dismissNotice} />
        {slashMenu.open && <SlashMenu id={listId} items={slashMenu.items} forArgument={slashMenu.forArgument} more={slashMenu.more} active={slashMenu.active} onPick={pickCommand} onHover={slashMenu.setActive} />}
        <TextArea
          ref={textareaRef}
          aria-label="Message #maestro"
          // A combobox while slash commands can pop up a list (aria-expanded is only valid on one).
          role={slash === undefined ? undefined : "combobox"}
          aria-autocomplete={slash === undefined ? undefined : "list"}
          aria-expanded={slash === undefined ? undefined : slashMenu.open}
          aria-controls={slashMenu.open ? listId : undefined}
          aria-activedescendant={slashMenu.open ? slashOptionId(listId, slashMenu.active) : undefined}
          aria-describedby={counterId}
          aria-invalid={over ? true : undefined}
          rows={1}
          value={text}
          placeholder="Message #maestro"
          onChange={(event) => onType(event.target.value, event.target.selectionStart)}
          onSelect={(event) => setCaret(event.currentTarget.selectionStart)}
          onKeyDown={onKeyDown}
          // Grows with what is typed (where the browser can), up to a few lines, then scrolls.
          className="field-sizing-content max-h-24 min-h-9 py-1.5"
        />
        <Button type="submit" disabled={sending || content === ""} className="h-9 shrink-0 px-3 py-1.5 text-xs">
          {sending ? "Sending…" : "Send"}
        </Button>
      </div>
      <SlashStatus slash={slash} text={text} menuOpen={!slashMenu.previewable} />
      <div id={counterId} className="text-[11px] leading-4 text-slate-500 dark:text-slate-400">
        <span data-testid="chat-char-count" className={cn("tabular-nums", over && "font-medium text-rose-700 dark:text-rose-300")}>
          {count.format(content.length)} / {count.format(maxMessageChars)}
        </span>
        {over ? (
          <span role="status" className="block text-rose-700 dark:text-rose-300">
            Over the limit: the message will be truncated to {count.format(maxMessageChars)} characters.
          </span>
        ) : (
          <span className="hidden sm:inline">
            {" "}
            {/* The hints sit here, not in the placeholder, so the box stays one line high and the pane holds more messages. */}
            {slash !== undefined && <>· / commands </>}· <kbd className="font-sans">Ctrl</kbd>/<kbd className="font-sans">⌘</kbd>+<kbd className="font-sans">Enter</kbd> sends
          </span>
        )}
      </div>
    </form>
  );
}
