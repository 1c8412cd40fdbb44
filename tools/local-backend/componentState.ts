/**
 * Component state: each component's database (the app's is the component
 * ""), its committed documents per table and the engine's indexes over them,
 * and the registry of the deployment's components with their functions.
 */
import { jsonToConvex, type JSONValue, type Value } from "convex/values";
import { callStorage } from "./callContext.js";
import { ROOT, splitUdfPath, type FunctionInfo } from "./functions.js";
import type { ModuleMap } from "./modules.js";
import { OrderedIndex, type IndexSpan, type Key, type RangeFilter } from "./orderedIndex.js";
import { tableKey } from "./readSets.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- convex-test internals are untyped */

/**
 * One component's database (the app's is the component ""), with the
 * engine's indexes over its committed documents:
 * - committed documents kept per table;
 * - every index's documents in its order (orderedIndex.ts), so an indexed
 *   query reads its range instead of every document.
 */
export class ComponentState {
  modules: ModuleMap = new Map();
  /** The database whose counter hands out ids for every component: the app's. */
  counterDb: any = undefined;
  /**
   * table → its committed documents in id order (its `by_id` index): `keys()`,
   * `values()`. No map from id to document beside it: `db._documents` is one.
   */
  readonly tables = new Map<string, { keys(): Iterable<string>; values(): Iterable<any> }>();
  /** table → index name → its fields. */
  private indexFields = new Map<string, Map<string, string[]>>();
  /** table → index name → the table's committed documents in that index's order (every index, built-in ones too). */
  private readonly ordered = new Map<string, Map<string, OrderedIndex>>();

  constructor(
    readonly path: string,
    readonly db: any,
  ) {}

  /**
   * Ids to scan for a query source convex-test answers itself (see
   * `orderedRange`): the span of the source's index that its leading `.eq`
   * filters pin, else the whole table. Read at once, by a caller that does
   * not yield, so no commit moves the index meanwhile.
   */
  *candidateIds(table: string, source: any): Iterable<string> {
    if (source?.type === "IndexRange") {
      const [, indexName] = String(source.indexName).split(".");
      const index = this.indexFields.get(table)?.has(indexName) === true ? this.orderedIndexes(table).get(indexName) : undefined;
      const range: any[] = source.range ?? [];
      let pinned = 0;
      while (index !== undefined && pinned < Math.min(index.fields.length, range.length)) {
        const filter = range[pinned];
        if (filter.type !== "Eq" || filter.fieldPath !== index.fields[pinned]) break;
        pinned += 1;
      }
      if (pinned > 0) {
        const { start, end } = index!.span(range.slice(0, pinned))!;
        for (let position = start; position < end; position++) yield index!.at(position);
        return;
      }
    }
    yield* this.tables.get(table)?.keys() ?? [];
  }

  recordRead(source: any) {
    const readSet = callStorage.getStore()?.readSet;
    if (readSet === undefined) return;
    const table = String(source.tableName ?? String(source.indexName).split(".")[0]);
    if (source.type === "IndexRange") readSet.ranges.push({ component: this.path, table, filters: source.range });
    else readSet.wholeTables.add(tableKey(this.path, table));
  }

  recordReadId(id: string) {
    callStorage.getStore()?.readSet?.ids.add(id);
  }

  rebuildIndexes() {
    this.indexFields = new Map();
    const schema = this.db._schema;
    if (schema !== null) {
      for (const [table, tableSchema] of schema.tables as Map<string, any>) {
        const byIndex = new Map<string, string[]>();
        for (const index of tableSchema.indexes as Array<{ indexDescriptor: string; fields: string[] }>) {
          byIndex.set(index.indexDescriptor, index.fields);
        }
        this.indexFields.set(table, byIndex);
      }
    }
    this.tables.clear();
    this.ordered.clear();
    const documents = this.db._documents;
    const byTable = new Map<string, any[]>();
    // Not Object.entries: an array of 480,000 pairs at full size.
    for (const id in documents) {
      const table = tableOf(id);
      let docs = byTable.get(table);
      if (docs === undefined) byTable.set(table, (docs = []));
      docs.push(documents[id]);
    }
    // One sort per index rather than an insertion per document.
    for (const [table, docs] of byTable) {
      for (const index of this.orderedIndexes(table).values()) index.build(docs);
    }
  }

  /**
   * Up to `limit` committed documents of `table` whose ids sort after
   * `afterId` (from the first when null), in id order. A walk resumed from
   * the last id it read sees every document that stayed in the table, however
   * many were written or deleted between its steps (a compaction's walk).
   */
  documentsAfter(table: string, afterId: string | null, limit: number): any[] {
    const index = this.ordered.get(table)?.get("by_id");
    if (index === undefined) return [];
    const start = afterId === null ? 0 : index.firstAfter([afterId], { start: 0, end: index.size });
    const documents: any[] = [];
    for (let position = start; position < index.size && documents.length < limit; position++) documents.push(index.document(position));
    return documents;
  }

  /** The table's indexes in order, created (empty) on first use. */
  private orderedIndexes(table: string): Map<string, OrderedIndex> {
    let indexes = this.ordered.get(table);
    if (indexes === undefined) {
      indexes = new Map();
      for (const [name, fields] of Object.entries(BUILT_IN_INDEXES)) indexes.set(name, new OrderedIndex(fields, fieldOf, true));
      for (const [name, fields] of this.indexFields.get(table) ?? []) {
        indexes.set(name, new OrderedIndex([...fields, "_creationTime", "_id"], fieldOf, true));
      }
      this.ordered.set(table, indexes);
      this.tables.set(table, indexes.get("by_id")!);
    }
    return indexes;
  }

  /**
   * Committed documents handed to queries from the ordered indexes, for
   * tests and benchmarks: a query reads only what it needs (a page of a
   * paginated query, not its whole range).
   */
  rowsRead = 0;

  /**
   * The documents a query source reads, in its order, read lazily from an
   * ordered index with this transaction's own writes to the table merged in;
   * null where convex-test's own path must answer (see `orderedRange`).
   * Before, a read after a write to its table fell to convex-test's path,
   * which collected and sorted the whole range: a delegation of two tasks
   * read the column its first task went to whole to place the second, and a
   * message's insert was followed by reads of the tables it had just written.
   */
  orderedSource(db: any, source: any): { docs: () => Generator<any>; fieldPathsToSortBy: string[]; order: "asc" | "desc" } | null {
    const range = this.orderedRange(db, source);
    if (range === null) return null;
    const { index, span, order } = range;
    const { start, end } = span;
    const pending = pendingWritesIn(db, range.table);
    // Methods, not closures made per query: the backend runs under tsx, whose esbuild keeps function names (a property definition per closure made).
    if (pending.size === 0) return { docs: () => this.walk(index, start, end, order), fieldPathsToSortBy: range.fieldPathsToSortBy, order };
    // This transaction wrote to the table: its writes replace their committed documents, and the ones in range
    // are merged in, in index order (a few documents, sorted here, instead of convex-test sorting the whole range).
    const inRange = range.filters === null ? () => true : index.inRange(range.filters)!;
    const step = order === "asc" ? 1 : -1;
    const written = [...pending.values()].filter((doc): doc is any => doc !== null && inRange(doc)).sort((a, b) => step * index.compare(a, b));
    return { docs: () => this.merge(index, start, end, step, pending, written), fieldPathsToSortBy: range.fieldPathsToSortBy, order };
  }

  /** The committed documents of positions [start, end) of `index`, in `order`. */
  private *walk(index: OrderedIndex, start: number, end: number, order: "asc" | "desc"): Generator<any> {
    if (order === "asc") {
      for (let i = start; i < end; i++) {
        this.rowsRead += 1;
        yield index.document(i);
      }
    } else {
      for (let i = end - 1; i >= start; i--) {
        this.rowsRead += 1;
        yield index.document(i);
      }
    }
  }

  /** As `walk`, with this transaction's `pending` writes left out and those in range (`written`, sorted) merged in. */
  private *merge(index: OrderedIndex, start: number, end: number, step: 1 | -1, pending: Map<string, any>, written: any[]): Generator<any> {
    let next = 0;
    for (let i = step === 1 ? start : end - 1; i >= start && i < end; i += step) {
      const committed = index.document(i);
      if (pending.has(committed._id as string)) continue;
      while (next < written.length && step * index.compare(written[next], committed) < 0) yield written[next++];
      this.rowsRead += 1;
      yield committed;
    }
    while (next < written.length) yield written[next++];
  }

  /**
   * What `paginate` walks for one page: the source's documents from just
   * after `cursor`, in order, read one at a time as the page asks for them
   * (an array-like view: convex-test's paginate reads `length` and `[i]`),
   * so a page costs its own rows and not the range before or after it.
   * Null where convex-test's own path must answer, or the cursor is not one
   * of this index (convex-test then gives its own answer or error).
   */
  pageSource(db: any, source: any, cursor: string | null): { docs: ArrayLike<any>; fieldPathsToSortBy: string[]; order: "asc" | "desc" } | null {
    const range = this.orderedRange(db, source);
    // A page of a table this transaction wrote to: convex-test's own path, over the candidates `_iterateDocs` gives it.
    if (range === null || pendingWritesIn(db, range.table).size > 0) return null;
    const { index, span, order } = range;
    let first: number;
    let count: number;
    if (cursor === null) {
      first = order === "asc" ? span.start : span.end - 1;
      count = span.end - span.start;
    } else if (cursor === END_CURSOR) {
      first = span.start;
      count = 0;
    } else {
      const key = parseCursor(cursor);
      if (key === null || key.length !== index.fields.length) return null;
      if (order === "asc") {
        first = index.firstAfter(key, span);
        count = span.end - first;
      } else {
        first = index.firstAtOrAfterWithin(key, span) - 1;
        count = first - span.start + 1;
      }
    }
    const step = order === "asc" ? 1 : -1;
    const view = new Proxy([] as any[], {
      get: (target, property) => {
        if (property === "length") return count;
        if (typeof property === "string") {
          const offset = Number(property);
          if (Number.isInteger(offset) && offset >= 0 && offset < count) {
            this.rowsRead += 1;
            return index.document(first + step * offset);
          }
        }
        return Reflect.get(target, property);
      },
    });
    return { docs: view, fieldPathsToSortBy: range.fieldPathsToSortBy, order };
  }

  /**
   * The ordered index and span of committed documents a query source reads
   * (the range's filters too, null for a whole table), or null where
   * convex-test's own path must answer: a search, an index the schema does
   * not declare (convex-test's error), a range of another shape.
   */
  private orderedRange(
    db: any,
    source: any,
  ): { table: string; index: OrderedIndex; span: IndexSpan; filters: RangeFilter[] | null; fieldPathsToSortBy: string[]; order: "asc" | "desc" } | null {
    let table: string;
    let index: OrderedIndex | undefined;
    let span: IndexSpan | null;
    let filters: RangeFilter[] | null = null;
    let fieldPathsToSortBy: string[];
    if (source?.type === "FullTableScan") {
      table = String(source.tableName);
      index = this.orderedIndexes(table).get("by_creation_time")!;
      span = { start: 0, end: index.size };
      fieldPathsToSortBy = ["_creationTime"];
    } else if (source?.type === "IndexRange") {
      const [tableName, indexName] = String(source.indexName).split(".");
      table = tableName;
      if (!(indexName in BUILT_IN_INDEXES) && this.indexFields.get(table)?.get(indexName) === undefined) return null;
      index = this.orderedIndexes(table).get(indexName);
      if (index === undefined) return null;
      filters = source.range ?? [];
      span = index.span(filters!);
      fieldPathsToSortBy = [...index.fields];
    } else {
      return null;
    }
    if (span === null) return null;
    const order: "asc" | "desc" = source.order === "desc" ? "desc" : "asc";
    return { table, index, span, filters, fieldPathsToSortBy, order };
  }

  /** A committed write of document `id` (null: none before, or deleted): every index of its table follows it. */
  indexDocument(table: string, id: string, previous: any, next: any) {
    for (const index of this.orderedIndexes(table).values()) {
      if (next !== null) index.set(id, next, previous);
      else if (previous !== null) index.delete(id, previous);
    }
  }
}

/** The deployment's components by path, the app ("") first, as `convex.config.ts` installed them. */
export class Components extends Map<string, ComponentState> {
  /** The app's own component. */
  get root(): ComponentState {
    return this.get(ROOT)!;
  }

  /** Committed documents of a component ("" for the app), of one table or all, for tools and tests. */
  documents(componentPath: string, table?: string): Array<Record<string, Value>> {
    const state = this.get(componentPath);
    if (state === undefined) throw new Error(`No component is installed at "${componentPath}".`);
    const tables = table === undefined ? [...state.tables.values()] : [state.tables.get(table)];
    return tables.flatMap((docs) => (docs === undefined ? [] : [...docs.values()]));
  }

  /** A committed `_storage` row (any component), or null. */
  storedFile(storageId: string): { contentType?: string; size: number } | null {
    if (tableOf(storageId) !== "_storage") return null;
    for (const state of this.values()) {
      const row = state.db._documents[storageId];
      if (row !== undefined) return { contentType: row.contentType, size: row.size };
    }
    return null;
  }

  /** Public/internal and kind of the function at `udfPath` ("tasks:list") of a component ("" for the app), or null. */
  functionInfo(udfPath: string, componentPath = ROOT): FunctionInfo | null {
    const [modulePath, exportName = "default"] = splitUdfPath(udfPath);
    const fn = this.get(componentPath)?.modules.get(modulePath)?.[exportName] as any;
    if (fn === undefined || fn === null) return null;
    const visibility = fn.isPublic ? "public" : fn.isInternal ? "internal" : null;
    const type = fn.isQuery ? "query" : fn.isMutation ? "mutation" : fn.isAction ? "action" : fn.isHttp ? "httpAction" : null;
    if (type === null || (visibility === null && type !== "httpAction")) return null;
    return { type, visibility: visibility ?? "internal" };
  }
}

export function tableOf(id: string): string {
  return id.replace(/^[0-9]+/, "");
}

/** Indexes every table has, with the fields they order by (as convex-test sorts them). */
const BUILT_IN_INDEXES: Record<string, readonly string[]> = { by_creation_time: ["_creationTime", "_id"], by_id: ["_id"] };

/** A (dotted) field of a committed document, as convex-test's evaluateFieldPath reads it (committed documents hold no pending values). */
function fieldOf(field: string, doc: Record<string, Value>): Value | undefined {
  if (!field.includes(".")) return doc[field];
  let value: unknown = doc;
  for (const part of field.split(".")) {
    const plain = value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof ArrayBuffer);
    value = plain ? (value as Record<string, unknown>)[part] : undefined;
  }
  return value as Value | undefined;
}

/** This transaction's writes to `table`: each id's latest document (null: deleted), the innermost nested level winning. */
function pendingWritesIn(db: any, table: string): Map<string, any> {
  const latest = new Map<string, any>();
  for (const level of db._writes as Array<Record<string, any>>) {
    for (const id of Object.keys(level)) if (tableOf(id) === table) latest.set(id, level[id]);
  }
  return latest;
}

/** convex-test's cursor past the end of a range. */
const END_CURSOR = "_end_cursor";

/** A page cursor's key as convex-test encodes it (a JSON array of each field's JSON, null for undefined), or null if it is not one. */
function parseCursor(cursor: string): Key | null {
  try {
    const parts: unknown = JSON.parse(cursor);
    if (!Array.isArray(parts)) return null;
    return parts.map((part) => (part === null ? undefined : jsonToConvex(JSON.parse(part as string) as JSONValue)));
  } catch {
    return null;
  }
}
