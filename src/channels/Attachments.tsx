import { useAction, useMutation } from "convex/react";
import { useRef, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { ALLOWED_FILE_TYPES, baseContentType, contentTypeForUpload, FILE_LIMITS, fileRefusal, formatBytes } from "../../convex/lib/files";
import type { FileArtifact } from "../../convex/validators";
import { PaperclipIcon } from "../components/ui/icons";
import { userMessage } from "../lib/errors";
import { uploadFile } from "./upload";

export type PendingFile = {
  key: number;
  name: string;
  size: number;
  /** 0..1 while uploading. */
  progress: number;
  error: string | null;
  /** Set once the server accepted the file: what the post carries. */
  artifact: FileArtifact | null;
};

/** Where picked files go: a conversation (channelFiles) or a task's thread (taskFiles). */
export type AttachPlace = { channelId: Id<"channels"> } | { taskId: Id<"tasks"> };

/** The upload URL and the add for `place`: the same steps, the place's own functions. */
function usePlaceUploads(place: AttachPlace) {
  const channelUploadUrl = useMutation(api.channelMessages.generateUploadUrl);
  const addChannelFile = useAction(api.channelFiles.add);
  const taskUploadUrl = useMutation(api.taskFiles.generateUploadUrl);
  const addTaskFile = useAction(api.taskFiles.add);
  return "channelId" in place
    ? { uploadUrl: () => channelUploadUrl(place), add: (storageId: Id<"_storage">, name: string) => addChannelFile({ ...place, storageId, name }) }
    : { uploadUrl: () => taskUploadUrl(place), add: (storageId: Id<"_storage">, name: string) => addTaskFile({ ...place, storageId, name }) };
}

/**
 * Files picked for the next message of a conversation or a task's thread:
 * each is checked here first (the server checks again), uploaded with
 * progress, then added to its place; a refusal stays on its chip until
 * removed.
 */
export function useAttachments(place: AttachPlace) {
  const uploads = usePlaceUploads(place);
  const [items, setItems] = useState<PendingFile[]>([]);
  const nextKey = useRef(1);
  const update = (key: number, change: Partial<PendingFile>) => setItems((all) => all.map((item) => (item.key === key ? { ...item, ...change } : item)));

  async function uploadOne(key: number, file: File) {
    const contentType = contentTypeForUpload(file.name, file.type);
    const refusal = fileRefusal({ size: file.size, contentType });
    if (refusal !== null) {
      update(key, { error: refusal });
      return;
    }
    try {
      const url = await uploads.uploadUrl();
      const storageId = await uploadFile(url, file, contentType, (progress) => update(key, { progress }));
      update(key, { progress: 1 });
      const artifact = await uploads.add(storageId, file.name);
      update(key, { artifact });
    } catch (error) {
      update(key, { error: userMessage(error) });
    }
  }

  return {
    items,
    uploading: items.some((item) => item.artifact === null && item.error === null),
    artifacts: items.flatMap((item) => (item.artifact === null ? [] : [item.artifact])),
    attach(files: Iterable<File>) {
      for (const file of files) {
        const key = nextKey.current++;
        setItems((all) => [...all, { key, name: file.name, size: file.size, progress: 0, error: null, artifact: null }]);
        void uploadOne(key, file);
      }
    },
    remove(key: number) {
      setItems((all) => all.filter((item) => item.key !== key));
    },
    clear() {
      setItems([]);
    },
  };
}

export type Attachments = ReturnType<typeof useAttachments>;

const ACCEPT = [...ALLOWED_FILE_TYPES, ".md", ".csv", ".json", ".txt"].join(",");

/** The attach button (a file picker) for a composer. */
export function AttachButton({ attachments, disabled }: { attachments: Attachments; disabled?: boolean }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <input
        ref={input}
        type="file"
        multiple
        accept={ACCEPT}
        className="hidden"
        aria-label="Attach files"
        data-testid="attach-input"
        onChange={(event) => {
          attachments.attach(Array.from(event.target.files ?? []));
          event.target.value = "";
        }}
      />
      <button
        type="button"
        disabled={disabled}
        onClick={() => input.current?.click()}
        title={`Attach files (up to ${formatBytes(FILE_LIMITS.maxBytes)}: images, PDF, text, Markdown, CSV, JSON, zip)`}
        className="inline-flex items-center gap-1 rounded px-2 py-1 text-xs font-medium text-slate-700 hover:bg-slate-100 disabled:opacity-50 dark:text-slate-200 dark:hover:bg-slate-800"
      >
        <PaperclipIcon className="size-3.5" />
        Attach
      </button>
    </>
  );
}

/** The picked files: name, size, progress or the reason a file was refused, and a remove button. */
export function PendingFiles({ attachments }: { attachments: Attachments }) {
  if (attachments.items.length === 0) return null;
  return (
    <ul className="flex flex-wrap gap-2 text-xs" aria-label="Attached files">
      {attachments.items.map((item) => (
        <li
          key={item.key}
          data-testid="pending-file"
          className={`flex items-center gap-2 rounded-full border px-2 py-0.5 ${item.error ? "border-rose-200 bg-rose-50 text-rose-800 dark:border-rose-800 dark:bg-rose-950/40 dark:text-rose-300" : "border-slate-200 bg-slate-50 text-slate-800 dark:border-slate-700 dark:bg-slate-800/60 dark:text-slate-100"}`}
        >
          <span className="max-w-48 truncate">{item.name}</span>
          <span className="text-slate-500 dark:text-slate-400">{formatBytes(item.size)}</span>
          {item.error !== null ? (
            <span role="alert">{item.error}</span>
          ) : item.artifact === null ? (
            <progress className="h-1.5 w-16" max={1} value={item.progress} aria-label={`Uploading ${item.name}`} />
          ) : (
            <span className="text-emerald-700 dark:text-emerald-300">{baseContentType(item.artifact.contentType).startsWith("image/") ? "image" : "ready"}</span>
          )}
          <button type="button" onClick={() => attachments.remove(item.key)} aria-label={`Remove ${item.name}`} className="rounded px-1 hover:bg-slate-200 dark:hover:bg-slate-700">
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
