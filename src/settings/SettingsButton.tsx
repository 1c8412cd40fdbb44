import { useState } from "react";
import { Button } from "../components/ui/Button";
import { SettingsDialog, type SettingsDepartment } from "./SettingsDialog";

type Props = { department: SettingsDepartment | undefined };

/** The header's "Settings" button (admins only: the caller decides) and the dialog it opens. */
export function SettingsButton({ department }: Props) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="ghost" onClick={() => setOpen(true)} aria-haspopup="dialog" className="shrink-0 px-2">
        <SlidersIcon className="size-5 sm:size-4" />
        <span className="sr-only sm:not-sr-only">Settings</span>
      </Button>
      {open && <SettingsDialog department={department} onClose={() => setOpen(false)} />}
    </>
  );
}

/** Two sliders: "settings". */
function SlidersIcon({ className }: { className?: string }) {
  return (
    <svg
      viewBox="0 0 20 20"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.6}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      className={className}
    >
      <path d="M3 6h8M15 6h2M3 14h2M9 14h8" />
      <circle cx="13" cy="6" r="2" />
      <circle cx="7" cy="14" r="2" />
    </svg>
  );
}
