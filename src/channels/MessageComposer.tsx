import { useId, useState, type KeyboardEvent } from "react";
import { Button } from "../components/ui/Button";
import { InlineError, onSubmitted, Select } from "../components/ui/Field";
import { CONTROL_CLASS } from "../components/ui/Field";
import { cn } from "../lib/cn";
import { useSend } from "../lib/useSend";
import type { Id } from "../../convex/_generated/dataModel";
import type { FileArtifact } from "../../convex/validators";
import { AttachButton, PendingFiles, useAttachments, type Attachments } from "./Attachments";
import { IMPORTANCE_OPTIONS, type Importance } from "./types";

/** `clientMessageId`: the same for a retried send of one message (lib/useSend). */
export type Draft = { body: string; importance: Importance; blocking: boolean; files: FileArtifact[]; clientMessageId: string };

type Props = {
  placeholder: string;
  onSend: (draft: Draft) => Promise<unknown>;
  maxChars: number;
  /** Where attached files go: with it the composer can attach files. */
  channelId?: Id<"channels">;
};

/** Markdown box, importance and "blocking"; Enter sends, Shift+Enter breaks the line; a refused send keeps the draft and says why. */
export function MessageComposer({ placeholder, onSend, maxChars, channelId }: Props) {
  return channelId === undefined ? (
    <ComposerForm placeholder={placeholder} onSend={onSend} maxChars={maxChars} attachments={null} />
  ) : (
    <ComposerWithFiles placeholder={placeholder} onSend={onSend} maxChars={maxChars} channelId={channelId} />
  );
}

function ComposerWithFiles(props: Props & { channelId: Id<"channels"> }) {
  const attachments = useAttachments(props.channelId);
  return <ComposerForm {...props} attachments={attachments} />;
}

function ComposerForm({ placeholder, onSend, maxChars, attachments }: Omit<Props, "channelId"> & { attachments: Attachments | null }) {
  const [body, setBody] = useState("");
  const [importance, setImportance] = useState<Importance>("normal");
  const [blocking, setBlocking] = useState(false);
  const { sending, error, send } = useSend((text, clientMessageId) => onSend({ body: text, importance, blocking, files: attachments?.artifacts ?? [], clientMessageId }));
  const id = useId();
  const tooLong = body.trim().length > maxChars;
  const submit = () => {
    if (tooLong || attachments?.uploading) return;
    send(body.trim(), () => {
      setBody("");
      setImportance("normal");
      setBlocking(false);
      attachments?.clear();
    });
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    }
  };
  return (
    <form
      className="flex flex-col gap-2 border-t border-slate-100 p-3 dark:border-slate-800"
      onSubmit={onSubmitted(submit)}
    >
      <textarea
        aria-label={placeholder}
        placeholder={placeholder}
        value={body}
        rows={2}
        onChange={(event) => setBody(event.target.value)}
        onKeyDown={onKeyDown}
        aria-invalid={tooLong || undefined}
        className={cn(CONTROL_CLASS, "resize-y")}
      />
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
          {body.trim().length}/{maxChars}
        </span>
        <Button type="submit" disabled={sending || body.trim() === "" || tooLong || attachments?.uploading}>
          Send
        </Button>
      </div>
      {error && <InlineError>{error}</InlineError>}
    </form>
  );
}
