/**
 * A task message's metadata (sessions spec, `sendMessage{metadata?}`): a
 * small flat record of string keys and string values a client attaches for
 * its own use (a source, a ticket number, a client version). Bounded so a
 * message cannot smuggle a document in beside its text. Pure.
 */
import { MaestroError } from "./errors";

export const METADATA_LIMITS = { keys: 20, keyChars: 64, valueChars: 200 } as const;

/** Letters, digits and `_ . -`, starting with a letter or digit. */
const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** Refuses metadata outside the bounds with a clear error (the caller writes nothing then). */
export function checkMessageMetadata(metadata: Record<string, string>): Record<string, string> {
  const keys = Object.keys(metadata);
  if (keys.length > METADATA_LIMITS.keys) throw new MaestroError("INVALID_ARGUMENT", `A message's metadata has at most ${METADATA_LIMITS.keys} keys.`);
  for (const key of keys) {
    if (key.length > METADATA_LIMITS.keyChars || !KEY_PATTERN.test(key)) {
      throw new MaestroError("INVALID_ARGUMENT", `Metadata keys are 1 to ${METADATA_LIMITS.keyChars} letters, digits, "_", "." or "-", starting with a letter or digit.`);
    }
    if (metadata[key].length > METADATA_LIMITS.valueChars) throw new MaestroError("INVALID_ARGUMENT", `The metadata value of "${key}" is longer than ${METADATA_LIMITS.valueChars} characters.`);
  }
  return metadata;
}
