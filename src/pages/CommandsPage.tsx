// The command history route (`/d/:slug/commands`): the slash commands typed in the department, for everyone in it.
import { AuditPage } from "../audit/AuditPage";
import { CommandHistory } from "../audit/CommandHistory";
import { useDepartment } from "../shell/workspace";

export function CommandsPage() {
  const { _id: departmentId, slug } = useDepartment();
  return (
    <AuditPage testId="commands-page" title="Command history">
      <CommandHistory departmentId={departmentId} slug={slug} />
    </AuditPage>
  );
}
