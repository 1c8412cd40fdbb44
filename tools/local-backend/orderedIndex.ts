/**
 * A database index kept in order: the ids of one table's committed
 * documents sorted by the index's fields (then `_creationTime` and `_id`, as
 * Convex orders every index), so a query reads just its range, in order,
 * and stops at its limit — instead of collecting and sorting the whole
 * table on every query, which is what made a post to a 10,000-message chat
 * cost milliseconds.
 *
 * Values compare as Convex compares them (`compareValues`: undefined <
 * null < int64 < float64 < boolean < string < bytes < array < object).
 */
import { compareValues, jsonToConvex, type JSONValue, type Value } from "convex/values";

export type Key = Array<Value | undefined>;

/** One bound of a range, as convex-test passes it: a field, a comparison, a value (JSON, `{$undefined: null}` for undefined). */
export interface RangeFilter {
  type: "Eq" | "Gt" | "Gte" | "Lt" | "Lte";
  fieldPath: string;
  value: unknown;
}

/** A contiguous run of an index: positions `[start, end)`. */
export interface IndexSpan {
  start: number;
  end: number;
}

function compareValue(a: Value | undefined, b: Value | undefined): number {
  // Most keys are distinct finite numbers (creation times), equal strings or ids: answer those without allocating.
  if (typeof a === "number" && typeof b === "number" && a === a && b === b && a !== b) return a < b ? -1 : 1;
  if (a === b && typeof a !== "number") return 0;
  if (typeof a === "string" && typeof b === "string") return compareStrings(a, b);
  return compareValues(a as Value, b as Value);
}

/**
 * Two different strings in Convex's order (their UTF-8 bytes). Below the
 * surrogates (U+D800) a UTF-16 code unit is its code point, whose order the
 * UTF-8 bytes keep, so the first differing unit decides; past it (rare),
 * Convex's own comparison does.
 */
function compareStrings(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x < 0xd800 && y < 0xd800) return x < y ? -1 : 1;
    return compareValues(a, b);
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

function compareKeys(a: Key, b: Key): number {
  for (let i = 0; i < a.length; i++) {
    const c = compareValue(a[i], b[i]);
    if (c !== 0) return c;
  }
  return 0;
}

export class OrderedIndex {
  /**
   * Ids in index order, and their keys at the same positions (searched
   * without a map lookup per step). No map from id to key: a change names
   * the document it replaces, whose key is read again (a map per index held
   * ~2 million entries at 480,000 documents).
   */
  private ids: string[] = [];
  private sortedKeys: Key[] = [];

  /**
   * @param fields every field the index orders by, `_creationTime` and `_id` included (so keys are unique)
   * @param fieldOf reads a (dotted) field of a document
   */
  constructor(
    readonly fields: readonly string[],
    private readonly fieldOf: (field: string, doc: Record<string, Value>) => Value | undefined,
  ) {}

  get size(): number {
    return this.ids.length;
  }

  /** The id at a position. */
  at(position: number): string {
    return this.ids[position];
  }

  /** Replaces the contents with these documents (one sort instead of many inserts). */
  build(docs: Iterable<[string, Record<string, Value>]>): void {
    const entries: Array<{ id: string; key: Key }> = [];
    for (const [id, doc] of docs) entries.push({ id, key: this.keyOf(doc) });
    // Keys beside their ids: no map lookups inside the sort's comparisons.
    entries.sort((a, b) => compareKeys(a.key, b.key));
    this.ids = entries.map((entry) => entry.id);
    this.sortedKeys = entries.map((entry) => entry.key);
  }

  /** Puts a document in, in place of `previous`: the document last put in under `id`, if any. */
  set(id: string, doc: Record<string, Value>, previous: Record<string, Value> | null = null): void {
    const key = this.keyOf(doc);
    if (previous !== null) {
      const previousKey = this.keyOf(previous);
      // Most writes leave the indexed fields alone (a counter, a text): the entry stays where it is.
      if (compareKeys(previousKey, key) === 0) return;
      this.remove(id, previousKey);
    }
    const last = this.sortedKeys.length - 1;
    // New documents mostly sort last (creation times, counters): appended without a search.
    const position = last < 0 || compareKeys(this.sortedKeys[last], key) < 0 ? last + 1 : this.firstAtOrAfter(key);
    if (position === this.ids.length) {
      this.ids.push(id);
      this.sortedKeys.push(key);
    } else {
      this.ids.splice(position, 0, id);
      this.sortedKeys.splice(position, 0, key);
    }
  }

  /** Takes out `doc`, the document last put in under `id`. */
  delete(id: string, doc: Record<string, Value>): void {
    this.remove(id, this.keyOf(doc));
  }

  private remove(id: string, key: Key): void {
    const position = this.firstAtOrAfter(key);
    if (this.ids[position] !== id) throw new Error(`Ordered index out of step at ${id}`);
    this.ids.splice(position, 1);
    this.sortedKeys.splice(position, 1);
  }

  /**
   * Where the documents matching `range` lie, or null when `range` is not
   * an index range this index can answer in one span: equalities on a
   * prefix of its fields, then at most one lower and one upper bound on the
   * next field (what Convex's `withIndex` builds).
   */
  span(range: readonly RangeFilter[]): IndexSpan | null {
    const equal: Array<Value | undefined> = [];
    let i = 0;
    while (i < range.length && range[i].type === "Eq" && range[i].fieldPath === this.fields[i]) {
      equal.push(boundValue(range[i].value));
      i++;
    }
    let lower: { value: Value | undefined; inclusive: boolean } | null = null;
    let upper: { value: Value | undefined; inclusive: boolean } | null = null;
    for (; i < range.length; i++) {
      const filter = range[i];
      if (filter.fieldPath !== this.fields[equal.length]) return null;
      const bound = { value: boundValue(filter.value), inclusive: filter.type === "Gte" || filter.type === "Lte" };
      if ((filter.type === "Gt" || filter.type === "Gte") && lower === null) lower = bound;
      else if ((filter.type === "Lt" || filter.type === "Lte") && upper === null) upper = bound;
      else return null;
    }
    const last = equal.length;
    // Negative: the key sorts before the range; positive: after it; 0: inside (both searches are monotone).
    const below = (key: Key): boolean => {
      for (let f = 0; f < last; f++) {
        const c = compareValue(key[f], equal[f]);
        if (c !== 0) return c < 0;
      }
      if (lower === null) return false;
      const c = compareValue(key[last], lower.value);
      return lower.inclusive ? c < 0 : c <= 0;
    };
    const above = (key: Key): boolean => {
      for (let f = 0; f < last; f++) {
        const c = compareValue(key[f], equal[f]);
        if (c !== 0) return c > 0;
      }
      if (upper === null) return false;
      const c = compareValue(key[last], upper.value);
      return upper.inclusive ? c > 0 : c >= 0;
    };
    const start = this.partition((key) => !below(key), 0);
    const end = this.partition(above, start);
    return { start, end };
  }

  /**
   * The first position of `span` whose key sorts after `key` (a full key:
   * one value per field), where an ascending page after a cursor starts; the
   * positions before it hold the keys at or before `key`.
   */
  firstAfter(key: Key, span: IndexSpan): number {
    return this.partition((other) => compareKeys(other, key) > 0, span.start, span.end);
  }

  /** The first position of `span` whose key sorts at or after `key`: a descending page after a cursor starts just below it. */
  firstAtOrAfterWithin(key: Key, span: IndexSpan): number {
    return this.partition((other) => compareKeys(other, key) >= 0, span.start, span.end);
  }

  private keyOf(doc: Record<string, Value>): Key {
    return this.fields.map((field) => this.fieldOf(field, doc));
  }

  /** The first position, from `from`, whose key satisfies `test` (true from some point on, false before). */
  private partition(test: (key: Key) => boolean, from: number, to = this.ids.length): number {
    let low = from;
    let high = to;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (test(this.sortedKeys[middle])) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  private firstAtOrAfter(key: Key): number {
    return this.partition((other) => compareKeys(other, key) >= 0, 0);
  }
}

/** A range bound's value as convex-test evaluates it. */
function boundValue(raw: unknown): Value | undefined {
  if (raw !== null && typeof raw === "object" && "$undefined" in raw) return undefined;
  return jsonToConvex(raw as JSONValue);
}
