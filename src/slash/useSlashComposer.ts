import { useCallback, useLayoutEffect, useRef, useState } from "react";
import { useSend } from "../lib/useSend";
import type { SlashSupport } from "./slash";
import { useSlashInsert, useSlashMenu, type SlashMenuItem } from "./SlashMenu";
import { useSlashSend } from "./useSlashSend";

/**
 * What a message box with slash commands keeps (the task thread's and
 * #maestro's): its text and caret, the `/` menu, the palette's commands
 * landing in it, and sending, where text starting with `/` runs a command
 * and anything else is posted (see `useSlashSend`, `useSend`).
 */
export function useSlashComposer(slash: SlashSupport | undefined, onSend: (content: string, clientMessageId: string) => Promise<unknown>) {
  const [text, setText] = useState("");
  const [caret, setCaret] = useState(0);
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  const pendingCaret = useRef<number | null>(null);
  const slashSend = useSlashSend(slash, onSend);
  const { sending, error, send } = useSend(slashSend.send);
  const slashMenu = useSlashMenu(text, caret, slash?.commands, slash?.agents);

  // After a pick, put the caret where it belongs once React has written the text.
  useLayoutEffect(() => {
    const at = pendingCaret.current;
    if (at === null || textareaRef.current === null) return;
    pendingCaret.current = null;
    textareaRef.current.setSelectionRange(at, at);
  }, [text]);

  /** Puts `next` in the box, the caret at `at` (its end by default), and focus back in the box. */
  const write = useCallback((next: string, at = next.length) => {
    pendingCaret.current = at;
    setText(next);
    setCaret(at);
    textareaRef.current?.focus();
  }, []);
  // The command palette's pick lands here while the box is on screen.
  useSlashInsert(slash !== undefined, write);

  return {
    text,
    /** Where the caret is in `text`, as last typed or selected. */
    caret,
    /** Sets the text as it is (a sent message's box emptied), leaving the caret and focus alone. */
    setText,
    textareaRef,
    write,
    /** What was typed: a new notice from the last command goes. */
    onType(value: string, at: number) {
      setText(value);
      setCaret(at);
      slashSend.clearNotice();
    },
    setCaret,
    slashMenu,
    pickCommand: (item: SlashMenuItem) => write(item.text, item.caret),
    /** What the last command did, for `SlashNotice`. */
    notice: slashSend.notice,
    /** Puts the last command's notice away. */
    dismissNotice: slashSend.clearNotice,
    sending,
    error,
    /** Sends `content`; `onSent` clears the box once it went through. `allowEmpty`: no text is fine (the message carries files). */
    send,
  };
}
