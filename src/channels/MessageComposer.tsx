import { useId, useState, type KeyboardEvent } from "react";
import { Button } from "../components/ui/Button";
import { InlineError, onSubmitted, Select } from "../components/ui/Field";
import { CONTROL_CLASS } from "../components/ui/Field";
import { CompletionList, useCompletions, type TaskLinkSupport } from "../composer/useCompletions";
import { cn } from "../lib/cn";
import { SlashMenu, slashOptionId } from "../slash/SlashMenu";
import type { SlashSupport } from "../slash/slash";
import { useSlashComposer } from "../slash/useSlashComposer";
import { SlashNotice, SlashStatus } from "../slash/useSlashSend";
import type { MentionCandidate } from "../task/mentions";
import type { Id } from "../../convex/_generated/dataModel";
import type { FileArtifact } from "../../convex/validators";
import { AttachButton, PendingFiles, useAttachments, type Attachments } from "./Attachments";
import { IMPORTANCE_OPTIONS, type Importance } from "./types";

/**
 * `clientMessageId`: the same for a retried send of one message (lib/useSend).
 * `links`: the tasks the text links with `#` (present only when it links some).
 */
export type Draft = { body: string; importance: Importance; blocking: boolean; files: FileArtifact[]; links?: Array<Id<"tasks">>; clientMessageId: string };

type Props = {
  placeholder: string;
  onSend: (draft: Draft) => Promise<unknown>;
  maxChars: number;
  /** Where attached files go: with it the composer can attach files. */
  channelId?: Id<"channels">;
  /** Who `@` completes. */
  candidates?: readonly MentionCandidate[];
  /** What `#` completes; without it `#` is plain text. */
  tasks?: TaskLinkSupport;
  /** Slash commands (`/` at the start opens them); without it `/` is plain text. */
  slash?: SlashSupport;
};

const NO_CANDIDATES: readonly MentionCandidate[] = [];

/**
 * A channel's, DM's or thread's message box: Markdown, importance and
 * "blocking"; Enter sends, Shift+Enter breaks the line. The same `/`
 * commands, `@` mentions and `#` task links as the task thread's composer;
 * a refused send keeps the draft and says why.
 */
export function MessageComposer(props: Props) {
  return props.channelId === undefined ? <ComposerForm {...props} attachments={null} /> : <ComposerWithFiles {...props} channelId={props.channelId} />;
}

function ComposerWithFiles(props: Props & { channelId: Id<"channels"> }) {
  const attachments = useAttachments({ channelId: props.channelId });
  return <ComposerForm {...props} attachments={attachments} />;
}

function ComposerForm({ placeholder, onSend, maxChars, attachments, candidates = NO_CANDIDATES, tasks, slash }: Props & { attachments: Attachments | null }) {
  const [importance, setImportance] = useState<Importance>("normal");
  const [blocking, setBlocking] = useState(false);
  const composer = useSlashComposer(slash, (body, clientMessageId) => {
    const links = completions.links.map((task) => task._id as Id<"tasks">);
    return onSend({ body, importance, blocking, files: attachments?.artifacts ?? [], ...(links.length > 0 ? { links } : {}), clientMessageId });
  });
  const { text, caret, setText, setCaret, textareaRef, write, onType, slashMenu, pickCommand, notice, dismissNotice, sending, error } = composer;
  const completions = useCompletions({ text, caret, candidates, tasks, suppressed: slashMenu.open, write });
  const id = useId();
  const listId = useId();
  const tooLong = text.trim().length > maxChars;
  // A message may be just files.
  const hasFiles = (attachments?.artifacts.length ?? 0) > 0;
  const submit = () => {
    if (tooLong || attachments?.uploading) return;
    composer.send(
      text.trim(),
      () => {
        setText("");
        setImportance("normal");
        setBlocking(false);
        attachments?.clear();
        completions.reset();
      },
      { allowEmpty: hasFiles },
    );
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (slashMenu.onKeyDown(event, pickCommand) || completions.onKeyDown(event)) return;
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    }
  };
  const hints = [candidates.length > 0 ? "@ mentions" : null, tasks ? "# links a task" : null, slash ? "/ for commands" : null].filter(Boolean).join(" · ");
  return (
    <form data-testid="message-composer" className="flex flex-col gap-2 border-t border-slate-100 p-3 dark:border-slate-800" onSubmit={onSubmitted(submit)}>
      <div className="relative">
        <SlashNotice notice={notice} onDismiss={dismissNotice} />
        {slashMenu.open && <SlashMenu id={listId} items={slashMenu.items} forArgument={slashMenu.forArgument} more={slashMenu.more} active={slashMenu.active} onPick={pickCommand} onHover={slashMenu.setActive} />}
        <CompletionList id={listId} completions={completions} />
        <textarea
          ref={textareaRef}
          aria-label={placeholder}
          placeholder={hints === "" ? placeholder : `${placeholder} (${hints})`}
          value={text}
          rows={2}
          // A combobox while a list can pop up from it (aria-expanded is only valid on one).
          {...completions.textareaProps({ listId, menu: { open: slashMenu.open, activeId: slashOptionId(listId, slashMenu.active) }, typed: onType, setCaret })}
          onKeyDown={onKeyDown}
          aria-invalid={tooLong || undefined}
          className={cn(CONTROL_CLASS, "w-full resize-y")}
        />
      </div>
      <SlashStatus slash={slash} text={text} menuOpen={!slashMenu.previewable} />
      {completions.links.length > 0 && (
        <ul aria-label="Linked tasks" className="flex flex-wrap gap-1.5 text-xs">
          {completions.links.map((task) => (
            <li key={task._id} data-testid="pending-task-link" className="max-w-64 truncate rounded-full bg-indigo-50 px-2 py-0.5 font-medium text-indigo-800 dark:bg-indigo-950/50 dark:text-indigo-200">
              #{task.title}
            </li>
          ))}
        </ul>
      )}
      {attachments && <PendingFiles attachments={attachments} />}
      <div className="flex flex-wrap items-center gap-3 text-xs text-slate-600 dark:text-slate-300">
        {attachments && <AttachButton attachments={attachments} disabled={sending} />}
        <label htmlFor={`${id}-importance`} className="sr-only">
          Importance
        </label>
        <div className="w-28">
          <Select id={`${id}-importance`} value={importance} options={IMPORTANCE_OPTIONS} onValueChange={setImportance} className="py-1 text-xs" />
        </div>
        <label className="flex items-center gap-1">
          <input type="checkbox" checked={blocking} onChange={(event) => setBlocking(event.target.checked)} />
          Blocking (interrupts the agents it reaches)
        </label>
        <span className={cn("ml-auto tabular-nums", tooLong && "text-rose-700 dark:text-rose-300")}>
          {text.trim().length}/{maxChars}
        </span>
        <Button type="submit" disabled={sending || (text.trim() === "" && !hasFiles) || tooLong || attachments?.uploading}>
          Send
        </Button>
      </div>
      {error && <InlineError>{error}</InlineError>}
    </form>
  );
}
