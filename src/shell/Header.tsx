import type { ReactNode } from "react";
import { Button } from "../components/ui/Button";
import { Wordmark } from "../components/Wordmark";

type Props = {
  userName: string;
  onSignOut: () => void;
  /** The department switcher. */
  children?: ReactNode;
  /** Controls beside the user's name (the notifications bell). */
  actions?: ReactNode;
};

/**
 * Top bar: wordmark, the department switcher (`children`), notifications, who
 * is signed in, sign-out. On narrow screens the switcher wraps onto its own row.
 */
export function Header({ userName, onSignOut, children, actions }: Props) {
  return (
    <header className="flex shrink-0 flex-wrap items-center gap-x-6 gap-y-2 border-b border-slate-200 bg-white px-4 py-2.5 sm:flex-nowrap sm:px-6 dark:bg-slate-900 dark:border-slate-700">
      <Wordmark />
      <div className="order-last w-full min-w-0 sm:order-none sm:w-auto sm:flex-1">{children}</div>
      <div className="ml-auto flex min-w-0 items-center gap-2 sm:ml-0">
        {actions}
        <span className="max-w-40 truncate text-sm text-slate-600 dark:text-slate-300" title={`Signed in as ${userName}`}>
          {userName}
        </span>
        <Button variant="ghost" onClick={onSignOut} className="shrink-0">
          Sign out
        </Button>
      </div>
    </header>
  );
}
