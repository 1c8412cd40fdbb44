import { useId } from "react";
import { Dialog, ModalHeader } from "../components/ui/Modal";
import { SHORTCUTS } from "./shortcuts";

/** The `?` overlay: every keyboard shortcut, the board's included. */
export function ShortcutsHelp({ onClose }: { onClose: () => void }) {
  const headingId = useId();
  return (
    <Dialog onClose={onClose} labelledBy={headingId}>
      <div data-testid="shortcuts-help" className="flex flex-col dark:bg-slate-900">
        <ModalHeader headingId={headingId} title="Keyboard shortcuts" onClose={onClose} large />
        <dl className="grid grid-cols-[auto_1fr] items-center gap-x-6 gap-y-2.5 px-5 py-4 text-sm">
          {SHORTCUTS.map((shortcut) => (
            <div key={shortcut.description} className="contents">
              <dt className="flex gap-1">
                {shortcut.keys.map((key) => (
                  <kbd
                    key={key}
                    className="min-w-6 rounded-md border border-slate-300 bg-slate-50 px-1.5 py-0.5 text-center font-mono text-xs text-slate-700 shadow-[0_1px_0] shadow-slate-300 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-200"
                  >
                    {key}
                  </kbd>
                ))}
              </dt>
              <dd className="text-slate-700 dark:text-slate-300">{shortcut.description}</dd>
            </div>
          ))}
        </dl>
      </div>
    </Dialog>
  );
}
