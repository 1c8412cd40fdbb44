// A short live list (in a dialog or a form): a placeholder while it loads, a line when empty, else the list.
import type { ReactNode } from "react";
import { Skeleton } from "./Skeleton";

type Props<T> = {
  /** `undefined` while loading. */
  items: readonly T[] | undefined;
  /** What an empty list says ("No keys yet."). */
  empty: string;
  /** The list's classes. */
  className: string;
  /** One row: an <li> with its key. */
  children: (item: T) => ReactNode;
};

export function LiveList<T>({ items, empty, className, children }: Props<T>) {
  if (items === undefined) return <Skeleton className="h-10" />;
  if (items.length === 0) return <p className="text-xs text-slate-500 dark:text-slate-400">{empty}</p>;
  return <ul className={className}>{items.map(children)}</ul>;
}
