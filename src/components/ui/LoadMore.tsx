// A paginated list's "more" button: there while there is more, busy while the next page loads.
import type { PaginationStatus } from "convex/react";
import { Button } from "./Button";

type Props = {
  status: PaginationStatus;
  onLoadMore: () => void;
  label: string;
  variant: "ghost" | "secondary";
  /** The button's classes, and the row's around it. */
  className: string;
  rowClassName: string;
};

export function LoadMore({ status, onLoadMore, label, variant, className, rowClassName }: Props) {
  if (status !== "CanLoadMore" && status !== "LoadingMore") return null;
  return (
    <div className={rowClassName}>
      <Button variant={variant} onClick={onLoadMore} disabled={status === "LoadingMore"} className={className}>
        {status === "LoadingMore" ? "Loading…" : label}
      </Button>
    </div>
  );
}
