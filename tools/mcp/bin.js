#!/usr/bin/env node
// `npx maestro-mcp`: starts Maestro's MCP server (server.ts beside this file)
// through tsx, so it runs from the TypeScript source without a build step.
import { register } from "tsx/esm/api";

const tsx = register({ namespace: "maestro-mcp" });
const { main } = await tsx.import("./server.ts", import.meta.url);
await main();
