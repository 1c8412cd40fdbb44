/**
 * Persistence of the documents: every component's committed documents as
 * the write-ahead log stores them (naming their component, and a scheduled
 * job's target), loaded back at start, and folded into a snapshot when the
 * log is compacted. Documents of components no longer installed are kept.
 */
import { convexToJson, jsonToConvex, type JSONValue, type Value } from "convex/values";
import { tableOf, type ComponentState, type Components } from "./componentState.js";
import { shareStrings } from "./documentShapes.js";
import type { FileStore } from "./fileStorage.js";
import { ROOT } from "./functions.js";
import { TARGET_FIELD } from "./scheduling.js";
import type { DurableStore, SnapshotSource, StoredDocument } from "./storage.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- convex-test internals are untyped */

/**
 * Field naming a stored document's component. Convex reserves field names
 * starting with "_" for the system, so no document of a schema can hold it.
 */
const COMPONENT_FIELD = "_component";

/** Documents a background compaction reads at a time (storage.ts encodes them in slices of SNAPSHOT_SLICE_MS). */
const SNAPSHOT_CHUNK_DOCS = 32;

export class Persistence {
  /**
   * Stored documents of components no longer installed: kept (as Convex
   * keeps an unmounted component's data) and written back on compaction.
   */
  private readonly detached = new Map<string, StoredDocument>();
  constructor(
    private readonly store: DurableStore,
    private readonly components: Components,
    /** Scheduling's job targets: read back from stored jobs, stored with pending ones. */
    private readonly jobTargets: Map<string, string>,
    private readonly files: FileStore,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * Opens the log and puts the committed state back: each component's
   * documents, the id counter, the recorded mutation results (into
   * `mutationResults`) and the commit clock of `transactionManager`.
   */
  restore(transactionManager: any, mutationResults: Map<string, JSONValue>) {
    const stored = this.store.open();
    const documents = new Map<string, Record<string, any>>([...this.components.keys()].map((p) => [p, {}]));
    let lastCreationTime = 0;
    const storageIds = new Set<string>();
    const root = documents.get(ROOT)!;
    // Short strings seen so far (shareStrings): the map is dropped after the load, the sharing stays.
    const shared = new Map<string, string>();
    // Each parsed document holds its own copies of the ids it names: at 480,000 documents ~40 MB (the department's id alone 15 MB).
    const sharedAtLoad = (_field: string, text: string) => {
      const first = shared.get(text);
      if (first === undefined) shared.set(text, text);
      return first;
    };
    for (const [id, doc] of stored.documents) {
      if (id.endsWith("_storage") && tableOf(id) === "_storage") storageIds.add(id);
      let target = root;
      let fields: Record<string, JSONValue> = doc;
      // Only a component's documents and scheduled jobs carry these: the app's are taken as they are, not copied.
      if (COMPONENT_FIELD in doc || TARGET_FIELD in doc) {
        const { [COMPONENT_FIELD]: component = ROOT, [TARGET_FIELD]: jobTarget, ...rest } = doc;
        if (typeof jobTarget === "string") this.jobTargets.set(id, jobTarget);
        const found = documents.get(component as string);
        if (found === undefined) {
          this.detached.set(id, doc);
          continue;
        }
        target = found;
        fields = rest;
      }
      // Stored documents were validated when written: only encoded values (int64, bytes, special floats) need decoding.
      const value = (needsDecoding(fields) ? jsonToConvex(fields) : fields) as any;
      shareStrings(value, sharedAtLoad);
      target[id] = value;
      if (value._creationTime > lastCreationTime) lastCreationTime = value._creationTime;
    }
    if (this.detached.size > 0) {
      this.log(`Keeping ${this.detached.size} documents of components convex.config.ts no longer installs.`);
    }
    for (const [componentPath, state] of this.components) {
      state.db._documents = documents.get(componentPath);
      state.db._lastCreationTime = lastCreationTime;
    }
    const orphans = this.files.removeOrphans(storageIds);
    if (orphans > 0) this.log(`Removed ${orphans} stored file(s) no committed _storage row names (a crash before their commit).`);
    // One id counter for every component (see the _generateId patch).
    this.components.root.db._nextDocId = stored.nextDocId;
    for (const [key, response] of stored.mutationResults) mutationResults.set(key, response);
    // Stay ahead of every timestamp handed out before a restart, and of the clock.
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    transactionManager._lastCommitTs = stored.ts > nowNs ? stored.ts : nowNs;
  }

  /** A document as stored: its JSON, naming its component unless it is the app's, and a job's target component. */
  toStored(state: ComponentState, id: string, doc: any): StoredDocument {
    const json = convexToJson(doc as Value) as StoredDocument;
    const stored: StoredDocument = state.path === ROOT ? json : { ...json, [COMPONENT_FIELD]: state.path };
    const target = this.jobTargets.get(id);
    if (target === undefined) return stored;
    // A finished job is never resumed: forget where it pointed.
    if (doc.state.kind !== "pending" && doc.state.kind !== "inProgress") {
      this.jobTargets.delete(id);
      return stored;
    }
    return { ...stored, [TARGET_FIELD]: target };
  }

  /**
   * Starts folding the write-ahead log into a snapshot, beside the commits
   * (storage.ts): called from a commit, it returns at once.
   */
  compactInBackground(lastCommitTs: () => bigint, mutationResults: Map<string, JSONValue>): Promise<void> {
    return this.store.compactInBackground(this.snapshotSource(lastCommitTs, mutationResults));
  }

  private snapshotSource(lastCommitTs: () => bigint, mutationResults: Map<string, JSONValue>): SnapshotSource {
    // Each table's documents in id order, a chunk at a time, each step resuming after the last id it read: commits
    // between steps cannot make it skip a document that stays (one written or deleted meanwhile is in the fresh log).
    // No list of every document beside the indexes: a Map of all ids was 14 MiB at 400,000 documents, and doubled
    // to 28 MiB as deleted ids filled its table (V8 grows a Map whose deleted entries are under half of it).
    const chunks = function* (this: Persistence): Generator<StoredDocument[]> {
      yield [...this.detached.values()];
      for (const state of this.components.values()) {
        for (const table of [...state.tables.keys()]) {
          let afterId: string | null = null;
          for (;;) {
            const documents = state.documentsAfter(table, afterId, SNAPSHOT_CHUNK_DOCS);
            if (documents.length === 0) break;
            afterId = documents[documents.length - 1]._id as string;
            yield documents.map((doc) => this.toStored(state, doc._id as string, doc));
          }
        }
      }
    }.bind(this);
    return {
      chunks,
      // Read after the last chunk: the id counter only grows, so no id in the snapshot is handed out again.
      trailer: () => ({ ts: lastCommitTs(), nextDocId: this.components.root.db._nextDocId, mutationResults }),
    };
  }
}

/**
 * Whether stored JSON holds an encoded value (`{"$integer": …}`, `{"$bytes": …}`,
 * `{"$float": …}`: an object of one field named with "$"), which `jsonToConvex`
 * must turn back into a value; everything else is its own value.
 */
export function needsDecoding(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) {
    for (const item of value) if (needsDecoding(item)) return true;
    return false;
  }
  let fields = 0;
  let first = "";
  for (const key in value) {
    if (fields === 0) first = key;
    fields += 1;
    if (needsDecoding((value as Record<string, unknown>)[key])) return true;
  }
  return fields === 1 && first.startsWith("$");
}
