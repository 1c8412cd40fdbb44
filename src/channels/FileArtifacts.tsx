import { useQuery } from "convex/react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { formatBytes, isImageType } from "../../convex/lib/files";
import { PaperclipIcon } from "../components/ui/icons";
import type { FileArtifact } from "../../convex/validators";

type Props = { channelId: Id<"channels">; messageId: Id<"channelMessages">; files: FileArtifact[] };

/** A channel message's files, with the URLs the server hands to those who can read the message. */
export function FileArtifacts({ channelId, messageId, files }: Props) {
  const urls = useQuery(api.channelFiles.urls, { channelId, messageId });
  return <FileChips files={files} urls={urls} />;
}

/** Download URLs by storage id, as `channelFiles.urls` and `taskFiles.urls` answer; undefined while they load. */
export type FileUrls = ReadonlyArray<{ storageId: Id<"_storage">; url: string | null }> | undefined;

/**
 * A message's files as chips (name and size) that open or download them,
 * images as thumbnails. URLs come from the server only for those who can
 * read the message; until they arrive the chips show without links.
 */
export function FileChips({ files, urls }: { files: readonly FileArtifact[]; urls: FileUrls }) {
  const urlOf = new Map((urls ?? []).map((u) => [u.storageId, u.url]));
  return (
    <ul className="mt-1 flex flex-wrap gap-2 text-xs" aria-label="Files">
      {files.map((file) => {
        const url = urlOf.get(file.storageId) ?? null;
        const label = `${file.name} (${formatBytes(file.size)})`;
        return (
          <li key={file.storageId} data-testid="file-artifact">
            {isImageType(file.contentType) && url !== null ? (
              <a href={url} target="_blank" rel="noreferrer noopener" title={label} className="block">
                <img src={url} alt={file.name} loading="lazy" className="max-h-40 max-w-60 rounded border border-slate-200 object-contain dark:border-slate-700" />
                <span className="text-slate-600 dark:text-slate-300">{label}</span>
              </a>
            ) : (
              <a
                href={url ?? undefined}
                download={file.name}
                onClick={(event) => {
                  if (url === null) return;
                  // The file lives on the storage origin, where `download` is ignored: fetch it and save it under its name.
                  event.preventDefault();
                  void saveFile(url, file.name);
                }}
                target="_blank"
                rel="noreferrer noopener"
                aria-disabled={url === null || undefined}
                className="inline-flex items-center gap-1 rounded-full border border-slate-200 bg-slate-50 px-2 py-0.5 text-slate-800 hover:bg-slate-100 dark:border-slate-700 dark:bg-slate-800/60 dark:text-slate-100 dark:hover:bg-slate-800"
              >
                <PaperclipIcon className="size-3.5 text-slate-500 dark:text-slate-400" />
                <span className="max-w-48 truncate">{file.name}</span>
                <span className="text-slate-500 dark:text-slate-400">{formatBytes(file.size)}</span>
              </a>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** Downloads `url` as a file called `name`; if the storage will not be fetched from here, opens it instead. */
async function saveFile(url: string, name: string): Promise<void> {
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const blobUrl = URL.createObjectURL(await response.blob());
    const link = Object.assign(document.createElement("a"), { href: blobUrl, download: name });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(blobUrl), 10_000);
  } catch {
    window.open(url, "_blank", "noopener,noreferrer");
  }
}
