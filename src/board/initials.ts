/**
 * Up to two initials for a name: first and last word ("Ada Lovelace" → "AL"),
 * or the first two letters of a single word ("Jarvis" → "JA").
 */
export function initials(name: string): string {
  const words = name.trim().split(/[\s_-]+/).filter(Boolean);
  if (words.length === 0) return "?";
  const first = Array.from(words[0]);
  const letters = words.length > 1 ? [first[0], Array.from(words[words.length - 1])[0]] : first.slice(0, 2);
  return letters.join("").toUpperCase();
}
