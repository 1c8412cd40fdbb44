import type { ReactNode } from "react";
import { cn } from "../../lib/cn";

/** A grey placeholder block that pulses while data loads. */
export function Skeleton({ className }: { className?: string }) {
  return <div aria-hidden="true" className={cn("animate-pulse rounded-md bg-slate-200 dark:bg-slate-800", className)} />;
}

/** A loading placeholder: `label` says what is loading to screen readers, `children` (Skeleton blocks) show it to everyone. */
export function LoadingStatus({ label, className, children }: { label: string; className?: string; children: ReactNode }) {
  return (
    <div role="status" className={className}>
      <span className="sr-only">{label}</span>
      {children}
    </div>
  );
}

/** A column of Skeleton blocks, one per entry of `blocks` (their classes). */
export function SkeletonStack({ label, blocks, className }: { label: string; blocks: readonly string[]; className?: string }) {
  return (
    <LoadingStatus label={label} className={cn("flex flex-col gap-3", className)}>
      {blocks.map((block, i) => (
        <Skeleton key={i} className={block} />
      ))}
    </LoadingStatus>
  );
}

type RowsProps = {
  label: string;
  count: number;
  /** Each row's lines (their Skeleton classes). */
  lines: (row: number) => readonly string[];
  /** Size classes of a round avatar leading each row, if any. */
  avatar?: string;
  /** Extra classes of a row with an avatar (`items-center` to centre it on the lines). */
  rowClassName?: string;
};

/** A side panel's list while it loads: `count` rows of lines, each led by an avatar when one is given. */
export function SkeletonRows({ label, count, lines, avatar, rowClassName }: RowsProps) {
  return (
    <LoadingStatus label={label} className="flex flex-col gap-3 px-4 py-3">
      {Array.from({ length: count }, (_, row) => {
        const text = lines(row).map((line, i) => <Skeleton key={i} className={line} />);
        return avatar === undefined ? (
          <div key={row} className="flex flex-col gap-1.5">
            {text}
          </div>
        ) : (
          <div key={row} className={cn("flex gap-3", rowClassName)}>
            <Skeleton className={cn(avatar, "rounded-full")} />
            <div className="flex flex-1 flex-col gap-1.5">{text}</div>
          </div>
        );
      })}
    </LoadingStatus>
  );
}
