import { useState } from "react";
import { Button } from "../components/ui/Button";
import { SlidersIcon } from "../components/ui/icons";
import { SettingsDialog, type SettingsDepartment } from "./SettingsDialog";

type Props = { department: SettingsDepartment };

/** The header's "Settings" button (admins only: the caller decides) and the dialog it opens. */
export function SettingsButton({ department }: Props) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="ghost" onClick={() => setOpen(true)} aria-haspopup="dialog" className="shrink-0 px-2">
        <SlidersIcon className="size-5 sm:size-4" />
        <span className="sr-only lg:not-sr-only">Settings</span>
      </Button>
      {open && <SettingsDialog department={department} onClose={() => setOpen(false)} />}
    </>
  );
}
