import type { ComponentProps, FormEvent, ReactNode } from "react";
import { cn } from "../../lib/cn";
import { Button } from "./Button";

/** A form's `onSubmit` that runs `action` instead of the browser's submit (a page load). */
export function onSubmitted(action: () => void) {
  return (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    action();
  };
}

/** Shared look of text inputs, textareas and selects. */
export const CONTROL_CLASS =
  "block w-full rounded-lg border-0 bg-white px-3 py-2 text-sm text-slate-900 ring-1 ring-slate-300 ring-inset placeholder:text-slate-400 focus:ring-2 focus:ring-indigo-600 focus:outline-none disabled:bg-slate-50 disabled:text-slate-500 aria-invalid:ring-rose-400 dark:bg-slate-900 dark:text-slate-100 dark:ring-slate-600 dark:disabled:bg-slate-800/60 dark:disabled:text-slate-400";

/** What ties a control to its Field: its id (the label's target), and the error or hint that describes it. */
export type FieldControl = { id: string; "aria-invalid"?: true; "aria-describedby"?: string };

type FieldProps = {
  label: ReactNode;
  /** The id of the control inside, so the label points at it. */
  htmlFor: string;
  hint?: ReactNode;
  /** Shown under the control in red, in place of the hint. */
  error?: string | null;
  /** The control; as a function, it is given the attributes that tie it to the label, error and hint. */
  children: ReactNode | ((control: FieldControl) => ReactNode);
  className?: string;
};

/** A labelled form row: label, control, then a hint or an error. */
export function Field({ label, htmlFor, hint, error, children, className }: FieldProps) {
  const control: FieldControl = {
    id: htmlFor,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": error ? `${htmlFor}-error` : hint ? `${htmlFor}-hint` : undefined,
  };
  return (
    <div className={cn("flex flex-col gap-1.5", className)}>
      <label htmlFor={htmlFor} className="text-sm font-medium text-slate-700 dark:text-slate-200">
        {label}
      </label>
      {typeof children === "function" ? children(control) : children}
      {error ? (
        <p id={`${htmlFor}-error`} className="text-xs text-rose-700 dark:text-rose-300">
          {error}
        </p>
      ) : hint ? (
        <p id={`${htmlFor}-hint`} className="text-xs text-slate-500 dark:text-slate-400">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

export function TextInput({ className, type = "text", ...props }: ComponentProps<"input">) {
  return <input type={type} className={cn(CONTROL_CLASS, className)} {...props} />;
}

export function TextArea({ className, ...props }: ComponentProps<"textarea">) {
  return <textarea className={cn(CONTROL_CLASS, "resize-y", className)} {...props} />;
}

type SelectProps<T extends string> = Omit<ComponentProps<"select">, "onChange" | "value"> & {
  value: T;
  options: ReadonlyArray<{ value: T; label: string }>;
  onValueChange: (value: T) => void;
};

/** A native select over option data (`{ value, label }`), typed by its values. */
export function Select<T extends string>({ value, options, onValueChange, className, ...props }: SelectProps<T>) {
  return (
    <select
      value={value}
      // The options are ours, so the value is always one of T.
      onChange={(event) => onValueChange(event.target.value as T)}
      className={cn(CONTROL_CLASS, "pr-8", className)}
      {...props}
    >
      {options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </select>
  );
}

type ActionsProps = {
  /** The last save's failure, shown above the buttons. */
  failure: string | null;
  /** Offers Cancel when given. */
  onCancel?: () => void;
  submitLabel: string;
  /** The submit button's words while saving ("Saving…"); its usual words by default. */
  busyLabel?: string;
  busy: boolean;
  /** False while the form is incomplete: the submit button waits (disabled). */
  ready?: boolean;
  /**
   * While busy, the submit button is aria-disabled rather than disabled: a
   * disabled button drops focus to <body>, where Esc no longer reaches the
   * dialog (the form then ignores a second submit itself).
   */
  keepFocus?: boolean;
};

/** A form's last row: the failure, if any, then Cancel and the submit button. */
export function FormActions({ failure, onCancel, submitLabel, busyLabel = submitLabel, busy, ready = true, keepFocus = false }: ActionsProps) {
  return (
    <>
      {failure && <InlineError>{failure}</InlineError>}
      <div className="flex justify-end gap-2">
        {onCancel && (
          <Button variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
        )}
        <Button
          type="submit"
          {...(keepFocus ? { "aria-disabled": busy, className: "aria-disabled:cursor-progress aria-disabled:bg-indigo-300" } : { disabled: busy || !ready })}
        >
          {busy ? busyLabel : submitLabel}
        </Button>
      </div>
    </>
  );
}

/** An inline failure message next to what failed. */
export function InlineError({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <p role="alert" className={cn("rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-800 ring-1 ring-rose-200 ring-inset dark:bg-rose-950/40 dark:text-rose-300 dark:ring-rose-800", className)}>
      {children}
    </p>
  );
}
