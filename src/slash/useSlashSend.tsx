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
  notice: string | null;
};

/** Under the box: the live preview while a command is typed, else what the last command did. */
export function SlashStatus({ slash, text, menuOpen, notice }: StatusProps) {
  if (slash !== undefined && isSlashText(text) && !menuOpen && slash.renderPreview !== undefined) return <>{slash.renderPreview(text.trim())}</>;
  if (notice === null) return null;
  return (
    <p role="status" data-testid="slash-result" className="max-h-40 overflow-y-auto whitespace-pre-line text-xs text-emerald-700 dark:text-emerald-400">
      {notice}
    </p>
  );
}
