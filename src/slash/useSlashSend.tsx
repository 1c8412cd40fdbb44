import { useState } from "react";
import { isSlashText, type SlashSupport } from "./slash";

/**
 * A composer's send with slash commands: text starting with `/` is resolved
 * as a command (a failure comes back as the command's `{ ok: false, error }`,
 * which the composer shows inline, keeping the draft; nothing is posted),
 * anything else is posted.
 */
export function useSlashSend(slash: SlashSupport | undefined, onSend: (content: string, clientMessageId: string) => Promise<unknown>) {
  const [notice, setNotice] = useState<string | null>(null);
  async function send(content: string, clientMessageId: string) {
    setNotice(null);
    if (slash === undefined || !isSlashText(content)) return await onSend(content, clientMessageId);
    const result = await slash.run(content);
    if (result.ok) setNotice(result.message);
    return result;
  }
  return { send, notice, clearNotice: () => setNotice(null) };
}

type StatusProps = {
  slash: SlashSupport | undefined;
  text: string;
  /** The autocomplete is open on a partial name: no preview yet. */
  menuOpen: boolean;
};

/** Under the box: the live preview while a command is typed. */
export function SlashStatus({ slash, text, menuOpen }: StatusProps) {
  if (slash !== undefined && isSlashText(text) && !menuOpen && slash.renderPreview !== undefined) return <>{slash.renderPreview(text.trim())}</>;
  return null;
}

/**
 * What the last command did, floating over what is above the box (as the
 * slash menu does), inside the box's positioned wrapper: a long answer
 * (/help's list) scrolls within it and never grows the composer, so the
 * drawer or pane around it keeps its place. Typing or × dismisses it.
 */
export function SlashNotice({ notice, onDismiss }: { notice: string | null; onDismiss: () => void }) {
  if (notice === null) return null;
  return (
    <div
      data-testid="slash-notice"
      className="absolute bottom-full left-0 z-10 mb-1 flex w-full items-start gap-2 rounded-lg bg-white px-3 py-2 shadow-lg ring-1 ring-emerald-200 dark:bg-slate-900 dark:ring-emerald-800"
    >
      <p role="status" tabIndex={0} data-testid="slash-result" className="max-h-48 min-w-0 flex-1 overflow-y-auto text-xs break-words whitespace-pre-line text-emerald-800 dark:text-emerald-300">
        {notice}
      </p>
      <button
        type="button"
        onClick={onDismiss}
        aria-label="Dismiss"
        className="-mt-0.5 -mr-1 shrink-0 rounded px-1 text-sm leading-none text-slate-500 hover:bg-slate-100 hover:text-slate-800 focus-visible:outline-2 focus-visible:outline-indigo-600 dark:text-slate-400 dark:hover:bg-slate-800 dark:hover:text-slate-100"
      >
        ×
      </button>
    </div>
  );
}
