import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// Tests live in vitest.config.ts; this file is only the app build and dev server.
export default defineConfig({
  plugins: [react(), tailwindcss()],
});
