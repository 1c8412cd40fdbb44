import { expect, test } from "vitest";
import { importsOf } from "../../tools/warmApp";

test("importsOf finds the same-origin modules a page or module loads: static, side-effect and lazy imports, and scripts", () => {
  const base = "http://127.0.0.1:8080/pages/BoardPage.tsx";
  const text = [
    'import { a } from "/node_modules/.vite/deps/react.js?v=1";',
    'import "./board.css";',
    'export { b } from "../shell/role.ts";',
    'const Page = lazy(() => import("/pages/RunsPage.tsx"));',
    'import x from "https://cdn.example.com/x.js";',
    '<script type="module" src="/main.tsx"></script>',
  ].join("\n");
  expect(importsOf(text, base, "http://127.0.0.1:8080")).toEqual([
    "http://127.0.0.1:8080/node_modules/.vite/deps/react.js?v=1",
    "http://127.0.0.1:8080/pages/board.css",
    "http://127.0.0.1:8080/shell/role.ts",
    "http://127.0.0.1:8080/pages/RunsPage.tsx",
    "http://127.0.0.1:8080/main.tsx",
  ]);
});
