import { useId, useState, type KeyboardEvent } from "react";
import { Button } from "../components/ui/Button";
import { InlineError, TextArea } from "../components/ui/Field";
import { cn } from "../lib/cn";
import { useSend } from "../lib/useSend";

type Props = {
  /** The server's limit; longer messages are cut to it (and marked) rather than refused. */
  maxMessageChars: number;
  /** Posts the message as @human; a rejection's message shows above the box. */
  onSend: (text: string) => Promise<unknown>;
};

const count = new Intl.NumberFormat("en");

/**
 * The #maestro message box: Ctrl+Enter (⌘+Enter on a Mac) or Send posts,
 * plain Enter is a new line. It counts characters against the limit and says
 * so when a message will be truncated.
 */
export function ChatComposer({ maxMessageChars, onSend }: Props) {
  const [text, setText] = useState("");
  const { sending, error, send: sendContent } = useSend(onSend);
  const counterId = useId();
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
    }
  }

  return (
    <form
      data-testid="chat-composer"
      className="flex flex-col gap-1 border-t border-slate-100 px-3 py-2 dark:border-slate-800"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      {error && <InlineError className="px-2 py-1.5 text-xs">{error}</InlineError>}
      <div className="flex items-end gap-2">
        <TextArea
          aria-label="Message #maestro"
          aria-describedby={counterId}
          aria-invalid={over ? true : undefined}
          rows={1}
          value={text}
          placeholder="Message #maestro"
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
          // Grows with what is typed (where the browser can), up to a few lines, then scrolls.
          className="field-sizing-content max-h-24 min-h-9 py-1.5"
        />
        <Button type="submit" disabled={sending || content === ""} className="h-9 shrink-0 px-3 py-1.5 text-xs">
          {sending ? "Sending…" : "Send"}
        </Button>
      </div>
      <div id={counterId} className="text-[11px] leading-4 text-slate-500 dark:text-slate-400">
        <span data-testid="chat-char-count" className={cn("tabular-nums", over && "font-medium text-rose-700")}>
          {count.format(content.length)} / {count.format(maxMessageChars)}
        </span>
        {over ? (
          <span role="status" className="block text-rose-700">
            Over the limit: the message will be truncated to {count.format(maxMessageChars)} characters.
          </span>
        ) : (
          <span className="hidden sm:inline">
            {" "}
            · <kbd className="font-sans">Ctrl</kbd>/<kbd className="font-sans">⌘</kbd>+<kbd className="font-sans">Enter</kbd> sends
          </span>
        )}
      </div>
    </form>
  );
}
