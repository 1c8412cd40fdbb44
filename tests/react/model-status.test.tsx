import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, expect, test } from "vitest";
import { ModelProblemBanner, ModelStatus } from "../../src/shell/ModelStatus";

afterEach(cleanup);

test("a configured model is named in the header and no banner shows", () => {
  const status = { configured: true, label: "demo model (offline, rule-based)", problem: null };
  render(
    <>
      <ModelStatus status={status} />
      <ModelProblemBanner status={status} />
    </>,
  );
  expect(screen.getByTestId("model-label").textContent).toBe("Model: demo model (offline, rule-based)");
  expect(screen.queryByTestId("model-banner")).toBeNull();
});

test("without a model the banner says plainly that agents are paused, and why", () => {
  const status = { configured: false, label: null, problem: "No model configured: set OPENAI_API_KEY or OPENAI_BASE_URL for the deployment." };
  render(
    <>
      <ModelStatus status={status} />
      <ModelProblemBanner status={status} />
    </>,
  );
  expect(screen.queryByTestId("model-label")).toBeNull();
  expect(screen.getByRole("status").textContent).toBe(
    "Agents are paused and will not answer: No model configured: set OPENAI_API_KEY or OPENAI_BASE_URL for the deployment.",
  );
});
