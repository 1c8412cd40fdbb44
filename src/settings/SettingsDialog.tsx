import { useMutation, useQuery } from "convex/react";
import { useEffect, useId, type ReactNode } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { AuditLinks } from "../audit/AuditLinks";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { Dialog, ModalHeader } from "../components/ui/Modal";
import { SkeletonStack } from "../components/ui/Skeleton";
import { cn } from "../lib/cn";
import { SETTINGS_SECTIONS, type SettingsSection } from "../shell/addresses";
import { A2aServerSettings } from "./A2aServerSettings";
import { DepartmentAbout } from "./DepartmentAbout";
import { DepartmentCommands } from "./DepartmentCommands";
import { InjectionSettings } from "./InjectionSettings";
import { NewChatSession } from "./NewChatSession";
import { RetentionSettings } from "./RetentionSettings";
import { SettingsForm } from "./SettingsForm";
import type { ChatSettingsChanges } from "./settings";
import { ToolCallSettings } from "./ToolCallSettings";

/** The department the settings belong to. */
export type SettingsDepartment = { id: Id<"departments">; name: string; isAdmin: boolean; slug?: string };

type Props = {
  department: SettingsDepartment;
  onClose: () => void;
  /** The section the address names (`/d/:slug/settings/:section`): scrolled to on opening. */
  section?: string;
  /** Picks a section from the dialog's own list (the shell puts it in the address). */
  onSection?: (section: SettingsSection) => void;
};

/**
 * A department's settings (its owners and admins change them): its
 * description, chat on or
 * off, its limits, the secret scanner, a fresh chat session, and its slash commands. The server
 * checks who may do each; this shows its refusals inline.
 */
export function SettingsDialog({ department, onClose, section, onSection }: Props) {
  const headingId = useId();
  const sectionId = (id: SettingsSection) => `${headingId}-${id}`;
  useEffect(() => {
    if (section === undefined) return;
    const known = SETTINGS_SECTIONS.find((s) => s.id === section);
    if (known !== undefined) document.getElementById(`${headingId}-${known.id}`)?.scrollIntoView({ block: "start" });
  }, [section, headingId]);
  const part = (id: SettingsSection, children: ReactNode, first = false) => (
    <div id={sectionId(id)} data-settings-section={id} className={cn("scroll-mt-2", !first && "border-t border-slate-100 pt-4 dark:border-slate-800")}>
      {children}
    </div>
  );
  return (
    <Dialog onClose={onClose} labelledBy={headingId}>
      <ModalHeader headingId={headingId} title="Settings" onClose={onClose} />
      {onSection !== undefined && (
        <nav aria-label="Settings sections" className="flex flex-wrap gap-1 border-b border-slate-100 px-5 py-2 dark:border-slate-800">
          {SETTINGS_SECTIONS.map(({ id, label }) => (
            <a
              key={id}
              href={`#${sectionId(id)}`}
              aria-current={section === id ? "location" : undefined}
              onClick={(event) => {
                event.preventDefault();
                onSection(id);
                document.getElementById(sectionId(id))?.scrollIntoView({ block: "start" });
              }}
              className={cn(
                "rounded-md px-2 py-1 text-xs font-medium text-slate-600 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800",
                section === id && "bg-slate-100 text-slate-900 dark:bg-slate-800 dark:text-slate-100",
              )}
            >
              {label}
            </a>
          ))}
        </nav>
      )}
      <div className="flex min-h-0 flex-1 flex-col gap-6 overflow-y-auto px-5 py-4">
        {part("about", <DepartmentAbout departmentId={department.id} departmentName={department.name} isAdmin={department.isAdmin} />, true)}
        {part(
          "chat",
          <div className="flex flex-col gap-6">
            <section className="flex flex-col gap-3">
              <h3 className="text-sm font-semibold text-slate-800 dark:text-slate-200">#maestro chat in {department.name}</h3>
              <ErrorBoundary>
                <ChatSettingsEditor departmentId={department.id} onClose={onClose} />
              </ErrorBoundary>
            </section>
            <div className="border-t border-slate-100 pt-4 dark:border-slate-800">
              <StartSession department={department} />
            </div>
          </div>,
        )}
        {/* Retention draws its own rule above. */}
        {part("retention", <RetentionSettings departmentId={department.id} departmentName={department.name} isAdmin={department.isAdmin} />, true)}
        {part(
          "agents",
          <ErrorBoundary>
            <InjectionSettings departmentId={department.id} departmentName={department.name} isAdmin={department.isAdmin} />
          </ErrorBoundary>,
        )}
        {part(
          "model",
          <ErrorBoundary>
            <ToolCallSettings departmentId={department.id} departmentName={department.name} isAdmin={department.isAdmin} />
          </ErrorBoundary>,
        )}
        {part(
          "commands",
          <div className="flex flex-col gap-6">
            <ErrorBoundary>
              <DepartmentCommands departmentId={department.id} departmentName={department.name} isAdmin={department.isAdmin} />
            </ErrorBoundary>
            {department.slug !== undefined && department.isAdmin && (
              <div className="border-t border-slate-100 pt-4 dark:border-slate-800">
                <AuditLinks slug={department.slug} onNavigate={onClose} />
              </div>
            )}
          </div>,
        )}
        {part(
          "a2a",
          <ErrorBoundary>
            <A2aServerSettings departmentId={department.id} departmentName={department.name} isAdmin={department.isAdmin} />
          </ErrorBoundary>,
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
