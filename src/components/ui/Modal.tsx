import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { createPortal } from "react-dom";
import { cn } from "../../lib/cn";
import { Button } from "./Button";
import { CloseIcon } from "./icons";

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

type ModalProps = {
  onClose: () => void;
  /** Id of the element that names the modal (its heading). */
  labelledBy: string;
  children: ReactNode;
  /** Classes of the panel; the variant decides where it sits. */
  className?: string;
  variant: "dialog" | "drawer";
};

/**
 * A modal layer: backdrop, Escape and backdrop click close it, Tab stays
 * inside, focus moves in on open and back to where it was on close.
 * A child that handles Escape itself (an open autocomplete, say) calls
 * `preventDefault()` and the modal stays open.
 */
/** The open modals' panels, the topmost last: Escape pressed outside any of them closes only the top one. */
const openPanels: HTMLElement[] = [];

function Modal({ onClose, labelledBy, children, className, variant }: ModalProps) {
  const panelRef = useRef<HTMLDivElement>(null);
  const closeRef = useRef(onClose);
  useEffect(() => {
    closeRef.current = onClose;
  }, [onClose]);

  // A button that removed or disabled itself when clicked (Revoke, Save) leaves focus on the page's body,
  // outside the layer, where its own Escape handler never hears the key: the topmost modal still closes.
  useEffect(() => {
    const panel = panelRef.current;
    if (panel === null) return;
    openPanels.push(panel);
    const onDocumentKey = (event: globalThis.KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented || openPanels.at(-1) !== panel) return;
      const target = event.target;
      if (target instanceof Node && panel.parentElement?.contains(target)) return;
      event.preventDefault();
      closeRef.current();
    };
    document.addEventListener("keydown", onDocumentKey);
    return () => {
      document.removeEventListener("keydown", onDocumentKey);
      openPanels.splice(openPanels.indexOf(panel), 1);
    };
  }, []);
  // Read while rendering: by the time effects run, an autoFocus field inside already has focus.
  const [previous] = useState(() => (document.activeElement instanceof HTMLElement ? document.activeElement : null));

  useEffect(() => {
    const panel = panelRef.current;
    // An autoFocus field inside wins; otherwise the panel itself takes focus.
    if (panel && !panel.contains(document.activeElement)) panel.focus();
    const { overflow } = document.body.style;
    document.body.style.overflow = "hidden";
    // Everything else on the page is out of reach (clicks, Tab, screen readers) while the modal is up.
    const layer = panel?.parentElement;
    const inerted = Array.from(document.body.children).filter(
      (el): el is HTMLElement => el instanceof HTMLElement && el !== layer && !el.inert,
    );
    for (const el of inerted) el.inert = true;
    return () => {
      for (const el of inerted) el.inert = false;
      document.body.style.overflow = overflow;
      if (previous?.isConnected) previous.focus();
    };
  }, [previous]);

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (event.key === "Escape" && !event.defaultPrevented) {
      event.preventDefault();
      onClose();
      return;
    }
    if (event.key !== "Tab" || panelRef.current === null) return;
    const focusable = Array.from(panelRef.current.querySelectorAll<HTMLElement>(FOCUSABLE));
    if (focusable.length === 0) return;
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (event.shiftKey && (document.activeElement === first || document.activeElement === panelRef.current)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  }

  return createPortal(
    <div
      className={cn(
        "fixed inset-0 z-50 flex",
        variant === "dialog" ? "items-end justify-center p-0 sm:items-center sm:p-6" : "justify-end",
      )}
      onKeyDown={onKeyDown}
    >
      <div
        aria-hidden="true"
        data-testid="modal-backdrop"
        className="absolute inset-0 bg-slate-900/30 backdrop-blur-[1px]"
        onClick={onClose}
      />
      <div
        ref={panelRef}
        role="dialog"
        aria-modal="true"
        aria-labelledby={labelledBy}
        tabIndex={-1}
        className={cn(
          "relative flex flex-col bg-white shadow-xl focus:outline-none dark:bg-slate-900",
          variant === "dialog"
            ? "max-h-dvh w-full rounded-t-2xl sm:max-h-[calc(100dvh-3rem)] sm:max-w-lg sm:rounded-2xl"
            : "h-dvh w-full sm:max-w-xl sm:border-l sm:border-slate-200",
          className,
        )}
      >
        {children}
      </div>
    </div>,
    document.body,
  );
}

type PanelProps = Omit<ModalProps, "variant">;

/** A centred modal dialog (a bottom sheet on narrow screens). */
export function Dialog(props: PanelProps) {
  return <Modal variant="dialog" {...props} />;
}

/** A side panel over the right of the page; full-screen on narrow screens. */
export function Drawer(props: PanelProps) {
  return <Modal variant="drawer" {...props} />;
}

type CloseProps = {
  onClose: () => void;
  /** What screen readers hear ("Close task"). */
  label?: string;
  /** The drawer's and the shortcuts overlay's larger ×. */
  large?: boolean;
  className?: string;
};

/** The × that closes a dialog or a drawer. */
export function CloseButton({ onClose, label = "Close", large = false, className }: CloseProps) {
  return (
    <Button variant="ghost" onClick={onClose} aria-label={label} className={cn("-mr-2 p-1.5", className)}>
      <CloseIcon className={large ? "size-5" : undefined} />
    </Button>
  );
}

type HeaderProps = Omit<CloseProps, "label" | "className"> & {
  /** The heading's id, which the Dialog or Drawer names as `labelledBy`. */
  headingId: string;
  title: ReactNode;
  closeLabel?: string;
  /** Cut a long title to one line. */
  truncate?: boolean;
};

/** A dialog's or a drawer's title bar: its heading and the close button. */
export function ModalHeader({ headingId, title, closeLabel, truncate = false, ...close }: HeaderProps) {
  return (
    <header className="flex items-center justify-between gap-4 border-b border-slate-100 px-5 py-4 dark:border-slate-800">
      <h2 id={headingId} className={cn("text-base font-semibold text-slate-900 dark:text-slate-100", truncate && "truncate")}>
        {title}
      </h2>
      <CloseButton label={closeLabel} {...close} />
    </header>
  );
}
