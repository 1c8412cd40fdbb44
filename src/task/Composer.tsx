import { useId, type KeyboardEvent } from "react";
import { Button } from "../components/ui/Button";
import { InlineError, onSubmitted, TextArea } from "../components/ui/Field";
import type { Id } from "../../convex/_generated/dataModel";
import { AttachButton, PendingFiles, useAttachments, type Attachments } from "../channels/Attachments";
import { CompletionList, useCompletions, type TaskLinkSupport } from "../composer/useCompletions";
import { SlashMenu, slashOptionId } from "../slash/SlashMenu";
import { SlashNotice, SlashStatus } from "../slash/useSlashSend";
import type { SlashSupport } from "../slash/slash";
import type { MentionCandidate } from "./mentions";
import { useSlashComposer } from "../slash/useSlashComposer";

/** What a message carries besides its text: `taskLinks`, the tasks it links with `#`, and `files`, the uploads attached (each absent when none). */
export type SendExtras = { taskLinks?: Array<Id<"tasks">>; files?: Array<Id<"_storage">> };

type Props = {
  /** The task whose thread this is: with it the composer attaches files, uploaded for it. */
  taskId?: Id<"tasks">;
  /** Who can be @mentioned: the department's agents and members. */
  candidates: readonly MentionCandidate[];
  /** Posts the message; rejects with the failure to show. */
  /** `clientMessageId`: the same for a retried send of one message (lib/useSend). `extras`: absent when the message carries none. */
  onSend: (content: string, clientMessageId: string, extras?: SendExtras) => Promise<unknown>;
  /** Slash commands (`/` at the start opens them); without it `/` is plain text. */
  slash?: SlashSupport;
  /** What `#` completes; without it `#` is plain text. */
  tasks?: TaskLinkSupport;
};

/**
 * The thread's message box. Ctrl+Enter (⌘+Enter on a Mac) sends. Typing `@`
 * and the start of a name opens a list of matching agents and members: arrow
 * keys move through it, Enter or Tab picks (inserting `@Full Name `), Escape
 * closes it without closing the drawer. Files are attached as in a channel's
 * composer (channels/Attachments), uploaded for this task.
 */
export function Composer(props: Props) {
  return props.taskId === undefined ? <ComposerForm {...props} attachments={null} /> : <ComposerWithFiles {...props} taskId={props.taskId} />;
}

function ComposerWithFiles(props: Props & { taskId: Id<"tasks"> }) {
  const attachments = useAttachments({ taskId: props.taskId });
  return <ComposerForm {...props} attachments={attachments} />;
}

function ComposerForm({ candidates, onSend, slash, tasks, attachments }: Props & { attachments: Attachments | null }) {
  const { text, caret, setText, setCaret, textareaRef, write, onType, slashMenu, pickCommand, notice, dismissNotice, sending, error, send: sendContent } = useSlashComposer(slash, (content, clientMessageId) => {
    const links = completions.links.map((task) => task._id as Id<"tasks">);
    const files = (attachments?.artifacts ?? []).map((file) => file.storageId);
    const extras: SendExtras = { ...(links.length > 0 ? { taskLinks: links } : {}), ...(files.length > 0 ? { files } : {}) };
    return Object.keys(extras).length > 0 ? onSend(content, clientMessageId, extras) : onSend(content, clientMessageId);
  });
  const completions = useCompletions({ text, caret, candidates, tasks, suppressed: slashMenu.open, write });
  const listId = useId();
  const hintId = useId();

  // A message may be just files.
  const hasFiles = (attachments?.artifacts.length ?? 0) > 0;

  function send() {
    if (attachments?.uploading) return;
    sendContent(
      text.trim(),
      () => {
        setText("");
        attachments?.clear();
        completions.reset();
      },
      { allowEmpty: hasFiles },
    );
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

  return (
    <form
      className="flex flex-col gap-2"
      onSubmit={onSubmitted(send)}
    >
      {error && <InlineError>{error}</InlineError>}
      <div className="relative">
        <SlashNotice notice={notice} onDismiss={dismissNotice} />
        {slashMenu.open && <SlashMenu id={listId} items={slashMenu.items} forArgument={slashMenu.forArgument} more={slashMenu.more} active={slashMenu.active} onPick={pickCommand} onHover={slashMenu.setActive} />}
        <CompletionList id={listId} completions={completions} />
        <TextArea
          ref={textareaRef}
          aria-label="Message"
          {...completions.textareaProps({ listId, menu: { open: slashMenu.open, activeId: slashOptionId(listId, slashMenu.active) }, typed: onType, setCaret })}
          onKeyDown={onKeyDown}
          aria-describedby={hintId}
          rows={3}
          value={text}
          placeholder={slash === undefined ? "Write a message… @ to mention an agent or a teammate" : "Write a message… @ to mention, / for commands"}
          className="max-h-48 min-h-20"
        />
      </div>
      <SlashStatus slash={slash} text={text} menuOpen={!slashMenu.previewable} />
      {attachments && <PendingFiles attachments={attachments} />}
      <div className="flex items-center justify-between gap-3">
        <div className="flex min-w-0 items-center gap-2">
          {attachments && <AttachButton attachments={attachments} disabled={sending} />}
          <p id={hintId} className="text-xs text-slate-500 dark:text-slate-400">
            Markdown works. <kbd className="font-sans">Ctrl</kbd>/<kbd className="font-sans">⌘</kbd>+<kbd className="font-sans">Enter</kbd> sends.
          </p>
        </div>
        <Button type="submit" disabled={sending || (text.trim() === "" && !hasFiles) || attachments?.uploading}>
          {sending ? "Sending…" : "Send"}
        </Button>
      </div>
    </form>
  );
}
