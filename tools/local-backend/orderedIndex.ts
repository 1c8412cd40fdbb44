/**
 * A database index kept in order: one table's committed documents sorted
 * by the index's fields (then `_creationTime` and `_id`, as
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
  // Not Math.min: convex-test makes `Math` a global accessor (per-transaction overrides), a context lookup per use.
  const length = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x < 0xd800 && y < 0xd800) return x < y ? -1 : 1;
    return compareValues(a, b);
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

type Doc = Record<string, Value>;

export class OrderedIndex {
  /**
   * The table's committed documents in index order. Their keys are read
   * from them when compared, not kept beside them: a key array per document
   * and index (with its boxed creation time) was ~220 MB of a 590 MB heap at
   * 480,000 documents. Committed documents are never changed in place (a
   * write commits a new object, and functions get copies), so a document's
   * key is the one it was put in with.
   */
  private docs: Doc[] = [];
  /** Reads each field of `fields` from a document, in order. */
  private readonly readers: ReadonlyArray<(doc: Doc) => Value | undefined>;

  /**
   * @param fields every field the index orders by, `_creationTime` and `_id` included (so keys are unique)
   * @param fieldOf reads a (dotted) field of a document
   * @param ownFields whether `fieldOf` reads a field without a dot as the document's own property: such a field is then read directly (every comparison reads fields)
   */
  constructor(
    readonly fields: readonly string[],
    fieldOf: (field: string, doc: Doc) => Value | undefined,
    ownFields = false,
  ) {
    this.readers = fields.map((field) => (ownFields && !field.includes(".") ? (doc: Doc) => doc[field] : (doc: Doc) => fieldOf(field, doc)));
  }

  get size(): number {
    return this.docs.length;
  }

  /** The id at a position. */
  at(position: number): string {
    return this.docs[position]._id as string;
  }

  /** The document at a position. */
  document(position: number): Doc {
    return this.docs[position];
  }

  /** The ids in index order. */
  *keys(): Generator<string> {
    for (const doc of this.docs) yield doc._id as string;
  }

  /** The documents in index order. */
  values(): IterableIterator<Doc> {
    return this.docs.values();
  }

  /** Replaces the contents with these documents (one sort instead of many inserts). */
  build(docs: Iterable<Doc>): void {
    const sorted = Array.from(docs);
    sorted.sort((a, b) => this.compareDocs(a, b));
    this.docs = sorted;
  }

  /** Puts a document in, in place of `previous`: the document last put in under `id`, if any. */
  set(id: string, doc: Doc, previous: Doc | null = null): void {
    if (previous !== null) {
      const position = this.positionOf(id, previous);
      // Most writes leave the indexed fields alone (a counter, a text): the new document takes the old one's place.
      if (this.compareDocs(previous, doc) === 0) {
        this.docs[position] = doc;
        return;
      }
      this.docs.splice(position, 1);
    }
    const last = this.docs.length - 1;
    // New documents mostly sort last (creation times, counters): appended without a search.
    const position = last < 0 || this.compareDocs(this.docs[last], doc) < 0 ? last + 1 : this.partition((other) => this.compareDocs(other, doc) >= 0, 0);
    if (position === this.docs.length) this.docs.push(doc);
    else this.docs.splice(position, 0, doc);
  }

  /** Takes out `doc`, the document last put in under `id`. */
  delete(id: string, doc: Doc): void {
    this.docs.splice(this.positionOf(id, doc), 1);
  }

  /** Where `doc`, the document last put in under `id`, is. */
  private positionOf(id: string, doc: Doc): number {
    const position = this.partition((other) => this.compareDocs(other, doc) >= 0, 0);
    if (this.docs[position]?._id !== id) throw new Error(`Ordered index out of step at ${id}`);
    return position;
  }

  /**
   * Where the documents matching `range` lie, or null when `range` is not
   * an index range this index can answer in one span: equalities on a
   * prefix of its fields, then at most one lower and one upper bound on the
   * next field (what Convex's `withIndex` builds).
   */
  span(range: readonly RangeFilter[]): IndexSpan | null {
    const bounds = this.bounds(range);
    if (bounds === null) return null;
    const start = this.partition((doc) => !bounds.below(doc), 0);
    const end = this.partition((doc) => bounds.above(doc), start);
    return { start, end };
  }

  /** Whether `doc` lies in `range` (one `span` can answer), by the same tests `span` searches with. */
  inRange(range: readonly RangeFilter[]): ((doc: Doc) => boolean) | null {
    const bounds = this.bounds(range);
    return bounds === null ? null : (doc) => !bounds.below(doc) && !bounds.above(doc);
  }

  /** Negative, zero or positive as `a` sorts before, with or after `b` in this index. */
  compare(a: Doc, b: Doc): number {
    return this.compareDocs(a, b);
  }

  /** Whether a document sorts before `range` (below) or after it (above): both monotone in index order. */
  private bounds(range: readonly RangeFilter[]): RangeBounds | null {
    const equal: Array<Value | undefined> = [];
    let i = 0;
    while (i < range.length && range[i].type === "Eq" && range[i].fieldPath === this.fields[i]) {
      equal.push(boundValue(range[i].value));
      i++;
    }
    let lower: Bound | null = null;
    let upper: Bound | null = null;
    for (; i < range.length; i++) {
      const filter = range[i];
      if (filter.fieldPath !== this.fields[equal.length]) return null;
      const bound = { value: boundValue(filter.value), inclusive: filter.type === "Gte" || filter.type === "Lte" };
      if ((filter.type === "Gt" || filter.type === "Gte") && lower === null) lower = bound;
      else if ((filter.type === "Lt" || filter.type === "Lte") && upper === null) upper = bound;
      else return null;
    }
    return new RangeBounds(this.readers, equal, lower, upper);
  }

  /**
   * The first position of `span` whose key sorts after `key` (a full key:
   * one value per field), where an ascending page after a cursor starts; the
   * positions before it hold the keys at or before `key`.
   */
  firstAfter(key: Key, span: IndexSpan): number {
    return this.partition((doc) => this.compareToKey(doc, key) > 0, span.start, span.end);
  }

  /** The first position of `span` whose key sorts at or after `key`: a descending page after a cursor starts just below it. */
  firstAtOrAfterWithin(key: Key, span: IndexSpan): number {
    return this.partition((doc) => this.compareToKey(doc, key) >= 0, span.start, span.end);
  }

  private compareDocs(a: Doc, b: Doc): number {
    for (const read of this.readers) {
      const c = compareValue(read(a), read(b));
      if (c !== 0) return c;
    }
    return 0;
  }

  private compareToKey(doc: Doc, key: Key): number {
    for (let i = 0; i < key.length; i++) {
      const c = compareValue(this.readers[i](doc), key[i]);
      if (c !== 0) return c;
    }
    return 0;
  }

  /** The first position, from `from`, whose document satisfies `test` (true from some point on, false before). */
  private partition(test: (doc: Doc) => boolean, from: number, to = this.docs.length): number {
    let low = from;
    let high = to;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (test(this.docs[middle])) high = middle;
      else low = middle + 1;
    }
    return low;
  }
}

interface Bound {
  value: Value | undefined;
  inclusive: boolean;
}

/**
 * A range's bounds: equalities on the index's first fields, then at most a
 * lower and an upper bound on the next. A class rather than two closures per
 * query: the backend runs under tsx, whose esbuild keeps function names, so
 * each named closure cost a property definition every time it was made.
 */
class RangeBounds {
  constructor(
    private readonly readers: ReadonlyArray<(doc: Doc) => Value | undefined>,
    private readonly equal: ReadonlyArray<Value | undefined>,
    private readonly lower: Bound | null,
    private readonly upper: Bound | null,
  ) {}

  /** Whether the document sorts before the range. */
  below(doc: Doc): boolean {
    const { readers, equal, lower } = this;
    const last = equal.length;
    for (let f = 0; f < last; f++) {
      const c = compareValue(readers[f](doc), equal[f]);
      if (c !== 0) return c < 0;
    }
    if (lower === null) return false;
    const c = compareValue(readers[last](doc), lower.value);
    return lower.inclusive ? c < 0 : c <= 0;
  }

  /** Whether the document sorts after the range. */
  above(doc: Doc): boolean {
    const { readers, equal, upper } = this;
    const last = equal.length;
    for (let f = 0; f < last; f++) {
      const c = compareValue(readers[f](doc), equal[f]);
      if (c !== 0) return c > 0;
    }
    if (upper === null) return false;
    const c = compareValue(readers[last](doc), upper.value);
    return upper.inclusive ? c > 0 : c >= 0;
  }
}

/** A range bound's value as convex-test evaluates it. */
function boundValue(raw: unknown): Value | undefined {
  if (raw !== null && typeof raw === "object" && "$undefined" in raw) return undefined;
  return jsonToConvex(raw as JSONValue);
}
