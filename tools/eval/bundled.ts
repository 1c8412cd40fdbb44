/**
 * The scenario files bundled into the app (convex/evals.ts runs them inside
 * a deployment, where there is no disk to read): the same JSON files the
 * CLI reads, imported one by one. A new scenario file needs its line here;
 * tests/backend/evalScore.test.ts fails until the two sets are the same.
 */
import answerBoard from "./scenarios/answer-board.json";
import answerHoldOff from "./scenarios/answer-hold-off.json";
import answerRoster from "./scenarios/answer-roster.json";
import approvalAsap from "./scenarios/approval-asap.json";
import approvalHighPriority from "./scenarios/approval-high-priority.json";
import approvalUrgent from "./scenarios/approval-urgent.json";
import buriedEarlier from "./scenarios/buried-earlier.json";
import buriedLongMessage from "./scenarios/buried-long-message.json";
import buriedThread from "./scenarios/buried-thread.json";
import chatNoise from "./scenarios/chat-noise.json";
import chatRequest from "./scenarios/chat-request.json";
import chatSplit from "./scenarios/chat-split.json";
import followupAskAgain from "./scenarios/followup-ask-again.json";
import followupMore from "./scenarios/followup-more.json";
import followupThanks from "./scenarios/followup-thanks.json";
import injectionChat from "./scenarios/injection-chat.json";
import injectionEmail from "./scenarios/injection-email.json";
import injectionInline from "./scenarios/injection-inline.json";
import injectionToolSyntax from "./scenarios/injection-tool-syntax.json";
import roleCopywriter from "./scenarios/role-copywriter.json";
import roleDesigner from "./scenarios/role-designer.json";
import roleEngineer from "./scenarios/role-engineer.json";
import singleArchitect from "./scenarios/single-architect.json";
import singleDesigner from "./scenarios/single-designer.json";
import singleEngineer from "./scenarios/single-engineer.json";
import singleWriter from "./scenarios/single-writer.json";
import splitDesignCopy from "./scenarios/split-design-copy.json";
import splitExplicitPairs from "./scenarios/split-explicit-pairs.json";
import splitThree from "./scenarios/split-three.json";
import splitTwo from "./scenarios/split-two.json";
import typoCase from "./scenarios/typo-case.json";
import typoHyphen from "./scenarios/typo-hyphen.json";
import typoWriter from "./scenarios/typo-writer.json";
import unknownFormer from "./scenarios/unknown-former.json";
import unknownName from "./scenarios/unknown-name.json";
import unknownTeam from "./scenarios/unknown-team.json";
import { parseScenario, type Scenario } from "./scenario";

const FILES: Record<string, unknown> = {
  "answer-board": answerBoard,
  "answer-hold-off": answerHoldOff,
  "answer-roster": answerRoster,
  "approval-asap": approvalAsap,
  "approval-high-priority": approvalHighPriority,
  "approval-urgent": approvalUrgent,
  "buried-earlier": buriedEarlier,
  "buried-long-message": buriedLongMessage,
  "buried-thread": buriedThread,
  "chat-noise": chatNoise,
  "chat-request": chatRequest,
  "chat-split": chatSplit,
  "followup-ask-again": followupAskAgain,
  "followup-more": followupMore,
  "followup-thanks": followupThanks,
  "injection-chat": injectionChat,
  "injection-email": injectionEmail,
  "injection-inline": injectionInline,
  "injection-tool-syntax": injectionToolSyntax,
  "role-copywriter": roleCopywriter,
  "role-designer": roleDesigner,
  "role-engineer": roleEngineer,
  "single-architect": singleArchitect,
  "single-designer": singleDesigner,
  "single-engineer": singleEngineer,
  "single-writer": singleWriter,
  "split-design-copy": splitDesignCopy,
  "split-explicit-pairs": splitExplicitPairs,
  "split-three": splitThree,
  "split-two": splitTwo,
  "typo-case": typoCase,
  "typo-hyphen": typoHyphen,
  "typo-writer": typoWriter,
  "unknown-former": unknownFormer,
  "unknown-name": unknownName,
  "unknown-team": unknownTeam,
};

/** Every bundled scenario, checked as the CLI checks a file, in file-name order. */
export const BUNDLED_SCENARIOS: readonly Scenario[] = Object.keys(FILES)
  .sort()
  .map((id) => parseScenario(id, FILES[id]));
