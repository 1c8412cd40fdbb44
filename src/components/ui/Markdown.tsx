import { useMemo } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import { cn } from "../../lib/cn";

/** The little of a hast node the mention pass needs (hast's own types are not a direct dependency). */
type HastNode = {
  type: string;
  tagName?: string;
  value?: string;
  properties?: Record<string, unknown>;
  children?: HastNode[];
};

const SKIPPED_TAGS = new Set(["code", "pre", "a"]);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * A rehype plugin that wraps `@Name` (for the given names, longest first,
 * case-insensitive, not inside code or links) in a styled span. It only
 * splits text nodes into text and our own span, so nothing from the message
 * becomes markup.
 */
function highlightMentions(names: readonly string[]) {
  const sorted = [...new Set(names)].filter(Boolean).sort((a, b) => b.length - a.length);
  const pattern = new RegExp(`(^|[^\\p{L}\\p{N}_])@(${sorted.map(escapeRegExp).join("|")})(?![\\p{L}\\p{N}_])`, "giu");

  function split(value: string): HastNode[] {
    const out: HastNode[] = [];
    let last = 0;
    for (const match of value.matchAll(pattern)) {
      const at = match.index + match[1].length;
      if (at > last) out.push({ type: "text", value: value.slice(last, at) });
      out.push({
        type: "element",
        tagName: "span",
        properties: { className: ["rounded", "bg-indigo-50 dark:bg-indigo-950/40", "px-0.5", "font-medium", "text-indigo-700 dark:text-indigo-300"], dataMention: "" },
        children: [{ type: "text", value: `@${match[2]}` }],
      });
      last = at + 1 + match[2].length;
    }
    if (last < value.length) out.push({ type: "text", value: value.slice(last) });
    return out;
  }

  function walk(node: HastNode) {
    if (node.children === undefined || (node.type === "element" && SKIPPED_TAGS.has(node.tagName ?? ""))) return;
    node.children = node.children.flatMap((child) => {
      if (child.type === "text") return split(child.value ?? "");
      walk(child);
      return [child];
    });
  }

  return () => (tree: HastNode) => {
    if (sorted.length > 0) walk(tree);
  };
}

// Element styles live here rather than in global CSS; `node` is dropped so it
// never reaches the DOM as an attribute.
const COMPONENTS: Components = {
  // Links leave the app in a new tab and get no handle on it.
  a: ({ node: _node, ...props }) => (
    <a {...props} target="_blank" rel="noopener noreferrer nofollow" className="font-medium text-indigo-700 underline underline-offset-2 hover:text-indigo-500 dark:text-indigo-300 dark:hover:text-indigo-300" />
  ),
  p: ({ node: _node, ...props }) => <p {...props} className="my-1.5 first:mt-0 last:mb-0" />,
  ul: ({ node: _node, ...props }) => <ul {...props} className="my-1.5 list-disc pl-5" />,
  ol: ({ node: _node, ...props }) => <ol {...props} className="my-1.5 list-decimal pl-5" />,
  li: ({ node: _node, ...props }) => <li {...props} className="my-0.5" />,
  blockquote: ({ node: _node, ...props }) => <blockquote {...props} className="my-1.5 border-l-2 border-slate-300 pl-3 text-slate-600 dark:border-slate-600 dark:text-slate-300" />,
  h1: ({ node: _node, ...props }) => <h3 {...props} className="mt-3 mb-1 text-base font-semibold" />,
  h2: ({ node: _node, ...props }) => <h3 {...props} className="mt-3 mb-1 text-sm font-semibold" />,
  h3: ({ node: _node, ...props }) => <h4 {...props} className="mt-2 mb-1 text-sm font-semibold" />,
  code: ({ node: _node, className, ...props }) => (
    <code {...props} className={cn("rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.8125rem] text-slate-800 dark:bg-slate-800 dark:text-slate-200", className)} />
  ),
  pre: ({ node: _node, ...props }) => (
    <pre {...props} tabIndex={0} className="my-2 overflow-x-auto rounded-lg bg-slate-900 p-3 text-slate-100 [&_code]:bg-transparent [&_code]:p-0 [&_code]:text-slate-100" />
  ),
  hr: ({ node: _node, ...props }) => <hr {...props} className="my-3 border-slate-200 dark:border-slate-700" />,
};

/**
 * Renders user or agent text as Markdown, safely: raw HTML in the text comes
 * out as text (react-markdown escapes it unless rehype-raw is added, which we
 * never do), and `javascript:` and other unsafe URLs are dropped by its
 * default URL transform. `mentions` are names to highlight where the text
 * says `@Name`.
 */
export function Markdown({ children, className, mentions }: { children: string; className?: string; mentions?: readonly string[] }) {
  const key = mentions?.join("\n") ?? "";
  const rehypePlugins = useMemo(() => (key === "" ? [] : [highlightMentions(key.split("\n"))]), [key]);
  return (
    <div className={cn("text-sm leading-relaxed break-words text-slate-800 dark:text-slate-200", className)}>
      <ReactMarkdown components={COMPONENTS} rehypePlugins={rehypePlugins}>
        {children}
      </ReactMarkdown>
    </div>
  );
}
