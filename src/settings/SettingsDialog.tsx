import { useMutation, useQuery } from "convex/react";
import { useId } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { AuditLinks } from "../audit/AuditLinks";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { Dialog, ModalHeader } from "../components/ui/Modal";
import { SkeletonStack } from "../components/ui/Skeleton";
import { DepartmentAbout } from "./DepartmentAbout";
import { DepartmentCommands } from "./DepartmentCommands";
import { InjectionSettings } from "./InjectionSettings";
import { NewChatSession } from "./NewChatSession";
import { RetentionSettings } from "./RetentionSettings";
import { SettingsForm } from "./SettingsForm";
import type { ChatSettingsChanges } from "./settings";

/** The department the settings belong to. */
export type SettingsDepartment = { id: Id<"departments">; name: string; isAdmin: boolean; slug?: string };

type Props = { department: SettingsDepartment; onClose: () => void };

/**
 * A department's settings (its owners and admins change them): its
 * description, chat on or
 * off, its limits, the secret scanner, a fresh chat session, and its slash commands. The server
 * checks who may do each; this shows its refusals inline.
 */
export function SettingsDialog({ department, onClose }: Props) {
  const headingId = useId();
  return (
    <Dialog onClose={onClose} labelledBy={headingId}>
      <ModalHeader headingId={headingId} title="Settings" onClose={onClose} />
      <div className="flex min-h-0 flex-1 flex-col gap-6 overflow-y-auto px-5 py-4">
        <DepartmentAbout departmentId={department.id} departmentName={department.name} isAdmin={department.isAdmin} />
        <section className="flex flex-col gap-3 border-t border-slate-100 pt-4 dark:border-slate-800">
          <h3 className="text-sm font-semibold text-slate-800 dark:text-slate-200">#maestro chat in {department.name}</h3>
          <ErrorBoundary>
            <ChatSettingsEditor departmentId={department.id} onClose={onClose} />
          </ErrorBoundary>
        </section>
        <div className="border-t border-slate-100 pt-4 dark:border-slate-800">
          <StartSession department={department} />
        </div>
        <RetentionSettings departmentId={department.id} departmentName={department.name} isAdmin={department.isAdmin} />
        <div className="border-t border-slate-100 pt-4 dark:border-slate-800">
          <ErrorBoundary>
            <InjectionSettings departmentId={department.id} departmentName={department.name} isAdmin={department.isAdmin} />
          </ErrorBoundary>
        </div>
        <div className="border-t border-slate-100 pt-4 dark:border-slate-800">
          <ErrorBoundary>
            <DepartmentCommands departmentId={department.id} departmentName={department.name} isAdmin={department.isAdmin} />
          </ErrorBoundary>
        </div>
        {department.slug !== undefined && department.isAdmin && (
          <div className="border-t border-slate-100 pt-4 dark:border-slate-800">
            <AuditLinks slug={department.slug} onNavigate={onClose} />
          </div>
        )}
      </div>
    </Dialog>
  );
}

function ChatSettingsEditor({ departmentId, onClose }: { departmentId: Id<"departments">; onClose: () => void }) {
  const settings = useQuery(api.chat.settings, { departmentId });
  const update = useMutation(api.chat.updateSettings);

  async function save(changes: ChatSettingsChanges) {
    if (Object.keys(changes).length > 0) await update({ departmentId, ...changes });
    onClose();
  }

  if (settings === undefined) {
    return <SkeletonStack label="Loading settings…" blocks={["h-10", "h-10", "h-16"]} />;
  }
  // Seeded once: a live change by another admin does not overwrite what is being typed.
  return <SettingsForm initial={settings} onSubmit={save} onCancel={onClose} />;
}

function StartSession({ department }: { department: SettingsDepartment }) {
  const newSession = useMutation(api.chat.newSession);
  return (
    <NewChatSession
      departmentName={department.name}
      allowed={department.isAdmin}
      onConfirm={() => newSession({ departmentId: department.id })}
    />
  );
}
