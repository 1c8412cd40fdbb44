/**
 * Lexical reranking for the project-graph context pack (messaging spec,
 * "Rerank code/doc snippets (Morph reranker where available; OSS
 * fallback)"). Maestro runs offline, so the fallback is what it uses: Okapi
 * BM25 of each candidate's text against the task (its title and
 * description), with the candidates themselves as the corpus for term
 * rarity. Items marked critical stay first, in their own order; the rest go
 * by score, and equal scores (no shared words at all, most often) keep the
 * order they came in, so with nothing to go on the rule order stands.
 */

/** BM25's term-frequency saturation and length normalisation, at their usual values. */
const K1 = 1.2;
const B = 0.75;

/** Words too common to say what a text is about. */
const STOPWORDS = new Set(
  "a an and are as at be but by for from has have in into is it its of on or that the this to was were will with you your we our not no do does did can".split(" "),
);

/** The words of `text` as BM25 counts them: lower case, letters and digits, stopwords and single characters out, a plural `s` dropped. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (raw.length < 2 || STOPWORDS.has(raw)) continue;
    out.push(raw.length > 3 && raw.endsWith("s") && !raw.endsWith("ss") ? raw.slice(0, -1) : raw);
  }
  return out;
}

/** Each document's BM25 score for `query`, the documents being the corpus; 0 for a document sharing no word with it. */
export function bm25Scores(query: string, documents: readonly string[]): number[] {
  const queryTerms = [...new Set(terms(query))];
  if (queryTerms.length === 0 || documents.length === 0) return documents.map(() => 0);
  const docs = documents.map((d) => {
    const counts = new Map<string, number>();
    const words = terms(d);
    for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
    return { counts, length: words.length };
  });
  const averageLength = docs.reduce((sum, d) => sum + d.length, 0) / docs.length || 1;
  const idf = new Map(
    queryTerms.map((q) => {
      const containing = docs.filter((d) => d.counts.has(q)).length;
      return [q, Math.log(1 + (docs.length - containing + 0.5) / (containing + 0.5))];
    }),
  );
  return docs.map(({ counts, length }) =>
    queryTerms.reduce((score, q) => {
      const tf = counts.get(q) ?? 0;
      if (tf === 0) return score;
      return score + idf.get(q)! * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / averageLength)));
    }, 0),
  );
}

export interface RerankOptions<T> {
  /** What the items are ranked against (the task's title and description). */
  query: string;
  /** The text of an item that is scored. */
  text: (item: T) => string;
  /** Items kept ahead of every other whatever their score, in the order given. */
  critical?: (item: T) => boolean;
}

/** `items` most relevant first: critical ones, then by BM25 score against `query`, ties in the order given. */
export function rerank<T>(items: readonly T[], { query, text, critical = () => false }: RerankOptions<T>): T[] {
  const scores = bm25Scores(query, items.map(text));
  return items
    .map((item, index) => ({ item, index, critical: critical(item), score: scores[index] }))
    .sort((a, b) => Number(b.critical) - Number(a.critical) || (a.critical ? 0 : b.score - a.score) || a.index - b.index)
    .map((ranked) => ranked.item);
}
