import { useMutation, useQuery } from "convex/react";
import { useId, useMemo, useState, type ReactNode } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { ErrorBoundary, PanelBoundary, PanelError } from "../components/ErrorBoundary";
import { SkeletonStack } from "../components/ui/Skeleton";
import { cn } from "../lib/cn";
import { userMessage } from "../lib/errors";
import { useStoredState } from "../shell/useStoredState";
import { useNow } from "../lib/relativeTime";
import { ChatComposer } from "./ChatComposer";
import { ModeBadges } from "../slash/ModeBadge";
import { useSlashSupport } from "../slash/useSlashSupport";
import { canWrite, useRole, VIEWER_NOTE } from "../shell/role";
import { ChatTimeline } from "./ChatTimeline";
import { CHAT_DISABLED_TEXT, isChatDisabledError } from "./format";

const COLLAPSED_KEY = "maestro.chat.collapsed";

type Props = { departmentId: Id<"departments"> };

/**
 * The department's #maestro chat, live: the current session's newest messages
 * and a box to post as @human. It can be folded away (remembered across
 * reloads); when chat is off it says so and offers nothing to type in.
 */
export function ChatPane({ departmentId }: Props) {
  const [stored, setStored] = useStoredState(COLLAPSED_KEY);
  const collapsed = stored === "true";
  const toggle = () => setStored(collapsed ? "false" : "true");
  return (
    <PanelBoundary
      key={departmentId}
      frame={(error) => (
        <ChatFrame collapsed={collapsed} onToggle={toggle}>
          {error}
        </ChatFrame>
      )}
    >
      <LiveChat departmentId={departmentId} collapsed={collapsed} onToggle={toggle} />
    </PanelBoundary>
  );
}

function LiveChat({ departmentId, collapsed, onToggle }: Props & { collapsed: boolean; onToggle: () => void }) {
  const status = useQuery(api.chat.status, { departmentId });
  if (status !== undefined && !status.enabled) {
    return (
      <ChatFrame grow={false}>
        <ChatDisabled />
      </ChatFrame>
    );
  }
  return (
    <ChatFrame collapsed={collapsed} onToggle={onToggle}>
      {status === undefined ? (
        <ChatSkeleton />
      ) : (
        // Settings can turn chat off between the status and the list answering: say so rather than fail.
        <ErrorBoundary
          fallback={(error, retry) =>
            isChatDisabledError(error) ? <ChatDisabled /> : <PanelError message={userMessage(error)} onRetry={retry} />
          }
        >
          <ChatSession departmentId={departmentId} maxMessageChars={status.maxMessageChars} />
        </ErrorBoundary>
      )}
    </ChatFrame>
  );
}

function ChatSession({ departmentId, maxMessageChars }: Props & { maxMessageChars: number }) {
  const messages = useQuery(api.chat.list, { departmentId });
  // The roster's names, for the @mentions the timeline highlights (a mention wakes that agent).
  const agents = useQuery(api.agents.list, { departmentId });
  const mentionNames = useMemo(() => (agents ?? []).map((a) => a.name), [agents]);
  const post = useMutation(api.chat.postAsHuman);
  const slash = useSlashSupport(departmentId);
  // The same subscription as the composer's commands (Convex shares it): the #maestro lead mode for its badge.
  const chatLeadMode = useQuery(api.slashCommands.getSlashCommands, { departmentId })?.chatLeadMode;
  const writable = canWrite(useRole());
  const now = useNow(60_000);
  const [followSignal, setFollowSignal] = useState(0);

  async function send(text: string, clientMessageId: string) {
    // Whoever posts wants to see their message, even if they had scrolled up.
    setFollowSignal((n) => n + 1);
    await post({ departmentId, text, clientMessageId });
  }

  return (
    <>
      {chatLeadMode === "plan" && (
        <div className="border-b border-slate-100 px-4 py-1.5 dark:border-slate-800">
          <ModeBadges leadMode="plan" />
        </div>
      )}
      <ChatTimeline messages={messages} now={now} followSignal={followSignal} mentionNames={mentionNames} className="h-72 max-h-[60dvh] lg:h-auto lg:max-h-none lg:flex-1" />
      {writable ? (
        <ChatComposer maxMessageChars={maxMessageChars} onSend={send} slash={slash} />
      ) : (
        <p className="border-t border-slate-100 px-4 py-3 text-xs text-slate-500 dark:border-slate-800 dark:text-slate-400">{VIEWER_NOTE}</p>
      )}
    </>
  );
}

/** Exactly the server's words, and nothing to type in. */
export function ChatDisabled() {
  return (
    <p data-testid="chat-disabled" className="px-4 py-6 text-center text-xs text-slate-500 dark:text-slate-400">
      {CHAT_DISABLED_TEXT}
    </p>
  );
}

type FrameProps = {
  children: ReactNode;
  collapsed?: boolean;
  /** Without it the pane cannot be folded (chat off: there is nothing to fold). */
  onToggle?: () => void;
  /** Whether the pane takes the side panel's spare height on wide screens. */
  grow?: boolean;
};

/** The pane's card and "#maestro" header; fallbacks reuse it so the pane keeps its place. */
export function ChatFrame({ children, collapsed = false, onToggle, grow = true }: FrameProps) {
  const open = !collapsed || onToggle === undefined;
  const id = useId();
  return (
    <section
      data-testid="chat-pane"
      aria-labelledby={`${id}-heading`}
      className={cn("flex min-h-0 flex-col rounded-xl border border-slate-200 bg-white dark:bg-slate-900 dark:border-slate-700", grow && open && "lg:min-h-44 lg:flex-[20]")}
    >
      <header className={cn("flex items-center gap-2 px-4 py-3", open && "border-b border-slate-100 dark:border-slate-800")}>
        <h2 id={`${id}-heading`} className="text-sm font-semibold text-slate-700 dark:text-slate-200">
          #maestro
        </h2>
        <span className="truncate text-xs text-slate-500 dark:text-slate-400">Squad chat</span>
        {onToggle && (
          <button
            type="button"
            onClick={onToggle}
            aria-expanded={open}
            aria-controls={`${id}-body`}
            className="ml-auto rounded px-1.5 py-0.5 text-xs font-medium text-slate-600 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-slate-100"
          >
            {open ? "Hide" : "Show"}
          </button>
        )}
      </header>
      {/* Hidden, not unmounted, so the pane stays live and opens where the reader left it. */}
      <div id={`${id}-body`} hidden={!open} className="flex min-h-0 flex-1 flex-col">
        {children}
      </div>
    </section>
  );
}

function ChatSkeleton() {
  return <SkeletonStack label="Loading chat…" className="px-4 py-3" blocks={["h-3.5 w-24", "h-3 w-full", "mt-4 h-14 w-full rounded-lg"]} />;
}
