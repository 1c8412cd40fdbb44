/**
 * What a committed document costs in memory beyond its data. The backend
 * keeps every document in memory, for weeks; two things made a document
 * written at run time cost more than the same document loaded from disk:
 *
 * - its shape: V8 gave most documents a mutation wrote a hidden class of
 *   their own (about 440 bytes of map, descriptors and enum cache each,
 *   kept as long as the document), where documents parsed from the log
 *   share one per key list. A document is now rebuilt by an object literal
 *   made once per key list, whose objects all share its shape.
 * - its short strings: each held its own copy of the ids it names (the
 *   department's, its author's, its task's) and of its kinds and states.
 *   They are now the strings the previous version of the document, or the
 *   named document's `_id`, already holds.
 */
import type { Value } from "convex/values";

type Document = Record<string, Value>;

/** Top-level string fields up to this length (ids, names of states and kinds) are shared between documents. */
const SHARED_STRING_LENGTH = 64;

/**
 * Distinct key lists given a builder: a schema's tables and their optional
 * fields make tens to hundreds; past this (a schema-less table keyed by
 * user input), documents are kept as they come.
 */
const MAX_SHAPES = 2_000;

export class DocumentShapes {
  /** Key list (joined by NUL) → a function returning a copy of a document built by one object literal. */
  private readonly builders = new Map<string, (doc: Document) => Document>();

  /**
   * A committed document as it should be kept: the same fields and values
   * as `doc`, with a shared shape and shared short strings. `previous` is
   * the version it replaces (or null); `committed` looks a document up by
   * id, for the `_id` string of a document `doc` names.
   */
  settle(doc: Document, previous: Document | null, committed: (id: string) => Document | undefined): Document {
    const keys = Object.keys(doc);
    const shapeKey = keys.join("\u0000");
    let build = this.builders.get(shapeKey);
    // A literal's "__proto__" key would set the prototype instead (Convex reserves "_" names, but data is data).
    if (build === undefined && this.builders.size < MAX_SHAPES && !keys.includes("__proto__")) {
      build = literalBuilder(keys);
      this.builders.set(shapeKey, build);
    }
    const kept = build === undefined ? doc : build(doc);
    shareStrings(kept, (field, value) => {
      const before = previous?.[field];
      if (before === value) return before;
      const named = committed(value)?._id;
      return named === value ? named : undefined;
    });
    return kept;
  }
}

/**
 * Replaces each short top-level string of `doc` (not `_id`, which is
 * unique) by the equal string `sharedFor` returns, when it returns one.
 */
export function shareStrings(doc: Record<string, unknown>, sharedFor: (field: string, value: string) => string | undefined): void {
  for (const field in doc) {
    const value = doc[field];
    if (typeof value !== "string" || value.length > SHARED_STRING_LENGTH || field === "_id") continue;
    const shared = sharedFor(field, value);
    if (shared !== undefined) doc[field] = shared;
  }
}

/**
 * `(doc) => ({ "a": doc["a"], "b": doc["b"], … })` for these keys: every
 * object one literal makes starts from that literal's own shape, which no
 * other code adds properties to. Keys are JSON-quoted, so any field name is
 * written as data, never as code.
 */
function literalBuilder(keys: readonly string[]): (doc: Document) => Document {
  const fields = keys.map((key) => `${JSON.stringify(key)}: doc[${JSON.stringify(key)}]`).join(", ");
  return new Function("doc", `return { ${fields} };`) as (doc: Document) => Document;
}
