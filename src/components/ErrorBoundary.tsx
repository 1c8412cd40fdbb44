import { Component, type ErrorInfo, type ReactNode } from "react";
import { userMessage } from "../lib/errors";
import { Button } from "./ui/Button";

type Props = {
  children: ReactNode;
  /** Custom fallback; defaults to `ErrorPanel`. */
  fallback?: (error: unknown, retry: () => void) => ReactNode;
};
type State = { error: unknown; failed: boolean };

/**
 * Catches errors thrown while rendering query-driven UI (`useQuery` throws the
 * function's error). Retry re-mounts the children, which re-subscribes their
 * queries. Give it a `key` to reset it when what it shows changes.
 */
export class ErrorBoundary extends Component<Props, State> {
  state: State = { error: null, failed: false };

  static getDerivedStateFromError(error: unknown): State {
    return { error, failed: true };
  }

  componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error("Query-driven UI failed", error, info.componentStack);
  }

  retry = () => {
    this.setState({ error: null, failed: false });
  };

  render() {
    if (!this.state.failed) return this.props.children;
    const { fallback } = this.props;
    return fallback ? fallback(this.state.error, this.retry) : <ErrorPanel message={userMessage(this.state.error)} onRetry={this.retry} />;
  }
}

/** The message of a failure with a way to try again. */
export function ErrorPanel({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <div role="alert" className="mx-auto my-8 flex max-w-md flex-col items-center gap-3 rounded-xl border border-rose-200 bg-rose-50 p-6 text-center dark:border-rose-800 dark:bg-rose-950/40">
      <p className="text-sm font-medium text-rose-800 dark:text-rose-300">{message}</p>
      <Button variant="secondary" onClick={onRetry}>
        Try again
      </Button>
    </div>
  );
}

type PanelBoundaryProps = {
  /** The panel's own frame around the error, so the panel keeps its place and title; none by default. */
  frame?: (error: ReactNode) => ReactNode;
  children: ReactNode;
};

/** A panel that fails on its own: its failure shows as a `PanelError` (with a retry) inside its frame. */
export function PanelBoundary({ frame = (error) => error, children }: PanelBoundaryProps) {
  return <ErrorBoundary fallback={(error, retry) => frame(<PanelError message={userMessage(error)} onRetry={retry} />)}>{children}</ErrorBoundary>;
}

/** The compact error state of a side panel: the message and a retry, inside the panel's own frame. */
export function PanelError({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <div role="alert" className="flex flex-col items-center gap-2 px-4 py-6 text-center">
      <p className="text-xs text-rose-700 dark:text-rose-300">{message}</p>
      <Button variant="secondary" onClick={onRetry} className="px-2 py-1 text-xs">
        Try again
      </Button>
    </div>
  );
}
