/**
 * Read sets: what one query execution read (ids, index ranges, whole
 * tables, in the app and in components), and whether a commit's document
 * changes can alter its result, so only affected subscriptions re-run.
 */
import type { Value } from "convex/values";

/* eslint-disable @typescript-eslint/no-explicit-any -- convex-test's range filters are untyped */

export interface DocumentChange {
  id: string;
  /** Path of the component whose table this is; "" for the app's own tables. */
  component: string;
  table: string;
  before: Record<string, Value> | null;
  after: Record<string, Value> | null;
}

/** A table's key in a read set: tables are named per component. */
export function tableKey(component: string, table: string): string {
  return `${component}\u0000${table}`;
}

/**
 * What one query execution read, including what it read inside components
 * through `ctx.runQuery`: enough to tell whether a commit can change its
 * result. Ids are unique across components; tables are named per component.
 */
export class ReadSet {
  readonly ids = new Set<string>();
  /** `tableKey(component, table)` of tables read in full. */
  readonly wholeTables = new Set<string>();
  readonly ranges: Array<{ component: string; table: string; filters: unknown[] }> = [];

  isAffectedBy(changes: DocumentChange[], evaluateRangeFilter: (doc: any, f: any) => boolean): boolean {
    for (const change of changes) {
      if (this.ids.has(change.id) || this.wholeTables.has(tableKey(change.component, change.table))) return true;
      for (const range of this.ranges) {
        if (range.table !== change.table || range.component !== change.component) continue;
        const matches = (doc: Record<string, Value> | null) =>
          doc !== null && range.filters.every((filter) => evaluateRangeFilter(doc, filter));
        if (matches(change.before) || matches(change.after)) return true;
      }
    }
    return false;
  }
}
