import type { ReactNode } from "react";
import { Wordmark } from "../components/Wordmark";

/** The frame of every sign-in screen (local password or Clerk): wordmark, tagline, then the form. */
export function SignInLayout({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <main className="grid min-h-dvh place-items-center bg-gradient-to-b from-indigo-50 to-slate-50 p-4 dark:from-indigo-950/40 dark:to-slate-900">
      <div className={className}>
        <div className="mb-8 text-center">
          <Wordmark size="lg" />
          <p className="mt-3 text-sm text-slate-600 dark:text-slate-300">One live board for your squad of humans and AI agents.</p>
        </div>
        {children}
      </div>
    </main>
  );
}
