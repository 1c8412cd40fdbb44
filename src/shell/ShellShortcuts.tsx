import { useQuery } from "convex/react";
import { useContext, useEffect, type Dispatch, type SetStateAction } from "react";
import { useNavigate } from "react-router";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { NewTaskDialog } from "../task/NewTaskDialog";
import { SlashInsertContext } from "../slash/insert";
import { CommandPalette, type PaletteItem } from "./CommandPalette";
import { agentPath, agentSlugOf, channelsPath, runsPath } from "./addresses";
import { shortcutFor } from "./shortcuts";
import { BOARD_SEARCH_ID } from "../board/FilterBar";
import { ShortcutsHelp } from "./ShortcutsHelp";
import { useTaskNavigation } from "./useTaskNavigation";

/** What the shortcuts open over the page; the header's "Jump to…" button opens the palette too. */
export type ShellOverlay = null | "palette" | "help" | "newTask";

type Props = {
  departmentId: Id<"departments">;
  departmentSlug: string;
  writable: boolean;
  /** Held by the shell, so its header can open the palette. */
  open: ShellOverlay;
  onOpen: Dispatch<SetStateAction<ShellOverlay>>;
};

/** The board's search box, when the board shows one (its FilterBar's `type="search"` input). */
function boardSearchBox(): HTMLInputElement | null {
  const box = document.getElementById(BOARD_SEARCH_ID);
  return box instanceof HTMLInputElement ? box : null;
}

/**
 * The department's keyboard shortcuts (src/shell/shortcuts.ts) and what they
 * open: the command palette, the shortcuts overlay, the new-task dialog.
 */
export function ShellShortcuts({ departmentId, departmentSlug, writable, open, onOpen: setOpen }: Props) {
  const navigate = useNavigate();
  const tasks = useTaskNavigation(departmentSlug);
  const slashInserts = useContext(SlashInsertContext);

  useEffect(() => {
    function onKeyDown(event: KeyboardEvent) {
      const modalOpen = document.querySelector('[aria-modal="true"]') !== null;
      const action = shortcutFor(event, modalOpen);
      if (action === null) return;
      if (action === "newTask" && !writable) return;
      event.preventDefault();
      if (action === "search") {
        const box = boardSearchBox();
        if (box !== null) box.focus();
        else setOpen("palette");
        return;
      }
      setOpen((current) => (action === "palette" && current === "palette" ? null : action));
    }
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [writable, setOpen]);

  const close = () => setOpen(null);
  function pick(item: PaletteItem) {
    close();
    if (item.kind === "task") tasks.open(item.id);
    else if (item.kind === "agent") void navigate(agentPath(departmentSlug, agentSlugOf(item.sessionKey)));
    else if (item.kind === "channel") void navigate(channelsPath(departmentSlug, item.id));
    // A file opens where it was posted: its task's drawer, or its conversation.
    else if (item.kind === "file") {
      if ("taskId" in item.where) tasks.open(item.where.taskId);
      else void navigate(channelsPath(departmentSlug, item.where.channelId));
    }
    // The composer on screen (the open task's, else #maestro's) takes the command to fill in and send.
    else if (item.kind === "command") slashInserts?.request(`${item.label} `);
    else void navigate(runsPath(departmentSlug, item.id));
  }

  if (open === "palette") return <CommandPalette departmentId={departmentId} onPick={pick} onClose={close} />;
  if (open === "help") return <ShortcutsHelp onClose={close} />;
  if (open === "newTask") return <NewTaskFromShortcut departmentId={departmentId} onClose={close} />;
  return null;
}

function NewTaskFromShortcut({ departmentId, onClose }: { departmentId: Id<"departments">; onClose: () => void }) {
  const agents = useQuery(api.agents.list, { departmentId });
  if (agents === undefined) return null;
  return <NewTaskDialog departmentId={departmentId} agents={agents} onClose={onClose} />;
}
