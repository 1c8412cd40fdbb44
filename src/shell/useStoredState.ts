import { useCallback, useState } from "react";

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** A string remembered in localStorage across reloads (null when unset). */
export function useStoredState(key: string): [string | null, (value: string) => void] {
  const [value, setValue] = useState(() => read(key));
  const set = useCallback(
    (next: string) => {
      setValue(next);
      try {
        localStorage.setItem(key, next);
      } catch {
        // Not remembered across reloads; the choice still holds for this visit.
      }
    },
    [key],
  );
  return [value, set];
}
