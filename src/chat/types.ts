import type { FunctionReturnType } from "convex/server";
import type { api } from "../../convex/_generated/api";

/** One #maestro message as the pane gets it: `{ id, ts, author, text }`. */
export type ChatMessage = FunctionReturnType<typeof api.chat.list>[number];
