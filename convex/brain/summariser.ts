/**
 * The summariser model's calls, made by the run action before its injection
 * step (never in a query or mutation): each long thread the injection would
 * summarise is sent to the department's OpenAI-compatible model, all at
 * once and under one deadline (the setting's timeout). An answer lib/summariser
 * accepts replaces that thread's extractive summary; a failure, a timeout or
 * an unusable answer leaves it extractive, so a prompt never waits longer
 * than the timeout nor loses a thread.
 */
import { threadsToSummarise, type InjectionMessage } from "../lib/injection";
import type { PiiRules } from "../lib/pii";
import { acceptSummary, MAX_MODEL_SUMMARIES, summaryRequest } from "../lib/summariser";
import { PLACEHOLDER_API_KEY } from "../lib/modelConfig";
import { streamModel } from "./model";

/** A department's summariser model as the run action gets it (records/settings `summariserForRun`). */
export interface SummariserModel {
  baseUrl: string;
  model: string;
  timeoutMs: number;
  apiKey: string | null;
}

export interface ModelSummaries {
  /** Accepted summaries by thread id. */
  summaries: Map<string, string>;
  /** Threads asked about, and why those that fell back did. */
  asked: number;
  fallbacks: string[];
}

/** Asks `model` for a summary of each long thread in `messages` (at most MAX_MODEL_SUMMARIES), under one deadline. */
export async function modelSummaries(model: SummariserModel, messages: readonly InjectionMessage[], pii: PiiRules): Promise<ModelSummaries> {
  const threads = threadsToSummarise(messages, pii).slice(0, MAX_MODEL_SUMMARIES);
  const summaries = new Map<string, string>();
  const fallbacks: string[] = [];
  if (threads.length === 0) return { summaries, asked: 0, fallbacks };
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), model.timeoutMs);
  try {
    await Promise.all(
      threads.map(async (thread) => {
        try {
          const reply = await streamModel(
            { apiKey: model.apiKey ?? PLACEHOLDER_API_KEY, baseURL: model.baseUrl, defaultModel: model.model, timeoutMs: model.timeoutMs, maxRetries: 0 },
            { messages: summaryRequest(thread) },
            { signal: deadline.signal },
          );
          const summary = acceptSummary(reply.content, pii);
          if (summary === null) fallbacks.push("an answer that is not a summary");
          else summaries.set(thread[0].threadId!, summary);
        } catch (error) {
          fallbacks.push(deadline.signal.aborted ? `no answer within ${model.timeoutMs} ms` : error instanceof Error ? error.message : String(error));
        }
      }),
    );
  } finally {
    clearTimeout(timer);
  }
  return { summaries, asked: threads.length, fallbacks };
}
