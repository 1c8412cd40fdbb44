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
    // One row from lg up; below, the department switcher takes a row of its own. Narrower rows drop what they can
    // do without (AppShell, ModelStatus), and the switcher never shrinks below its least width, so nothing overlaps.
    <header className="flex shrink-0 flex-wrap items-center gap-x-6 gap-y-2 border-b border-slate-200 bg-white px-4 py-2.5 sm:px-6 lg:flex-nowrap dark:bg-slate-900 dark:border-slate-700">
      <Wordmark />
      <div className="order-last w-full min-w-0 lg:order-none lg:w-auto lg:min-w-fit lg:flex-1">{children}</div>
      <div className="ml-auto flex min-w-0 items-center gap-2 lg:ml-0">
        {actions}
        <span className="hidden shrink-0 text-sm whitespace-nowrap text-slate-600 xl:inline dark:text-slate-300" title={`Signed in as ${userName}`}>
          {userName}
        </span>
        <Button variant="ghost" onClick={onSignOut} className="shrink-0">
          Sign out
        </Button>
      </div>
    </header>
  );
}
