import type { Id } from "../../convex/_generated/dataModel";
import { ClientError } from "../lib/errors";

/**
 * POSTs a file to a Convex upload URL, reporting progress (fetch cannot),
 * and resolves with the storage id the server answers.
 */
export function uploadFile(url: string, file: Blob, contentType: string, onProgress: (fraction: number) => void): Promise<Id<"_storage">> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", url);
    request.setRequestHeader("Content-Type", contentType);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    };
    request.onload = () => {
      if (request.status === 200) {
        try {
          resolve((JSON.parse(request.responseText) as { storageId: Id<"_storage"> }).storageId);
        } catch {
          reject(new ClientError("The upload answered with something other than a storage id."));
        }
        return;
      }
      reject(new ClientError(request.status === 413 ? "The file is too large to upload." : `The upload failed (HTTP ${request.status}).`));
    };
    request.onerror = () => reject(new ClientError("The upload failed: the server could not be reached."));
    request.send(file);
  });
}
