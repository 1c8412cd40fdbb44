import type { ReactNode } from "react";
import { Wordmark } from "./Wordmark";

/** A centred card for whole-screen states: connecting, rejected session, fatal errors. */
export function FullPageMessage({ children }: { children: ReactNode }) {
  return (
    <main className="grid min-h-dvh place-items-center bg-slate-50 p-4 dark:bg-slate-800/60">
      <div className="flex w-full max-w-sm flex-col items-center gap-4 text-center">
        <Wordmark size="lg" />
        <div className="text-sm text-slate-600 dark:text-slate-300">{children}</div>
      </div>
    </main>
  );
}
