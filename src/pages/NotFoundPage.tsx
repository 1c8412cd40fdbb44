// What an address that names no page shows: the app's own "not found", with a way back.
import { Link, useLocation } from "react-router";
import { departmentPath } from "../shell/addresses";
import { useWorkspace } from "../shell/workspace";

/**
 * "Page not found" for an address the route table does not know, inside the
 * app's shell, with links back to the department's board (the one in the
 * address, else the one used last).
 */
export function NotFoundPage() {
  const { department, fallback } = useWorkspace();
  const { pathname } = useLocation();
  const home = department ?? fallback;
  return (
    <section
      data-testid="not-found"
      aria-labelledby="not-found-heading"
      className="mx-auto my-12 flex w-full max-w-md flex-col items-center gap-3 rounded-xl border border-slate-200 bg-white px-6 py-8 text-center dark:border-slate-700 dark:bg-slate-900"
    >
      <h1 id="not-found-heading" className="text-base font-semibold text-slate-900 dark:text-slate-100">
        Page not found
      </h1>
      <p className="text-sm text-slate-600 dark:text-slate-300">
        Nothing in Maestro lives at <code className="font-mono text-xs break-all">{pathname}</code>. The link may be mistyped, or the page may have moved.
      </p>
      <Link to={departmentPath(home.slug)} className="text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300">
        Back to the {home.name} board
      </Link>
    </section>
  );
}
