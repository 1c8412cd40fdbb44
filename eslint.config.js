import convexPlugin from "@convex-dev/eslint-plugin";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

const LAYERS = "Arrows go one way: records ← reactions ← endpoints (docs/architecture.md).";

const RAW_BUILDERS = {
  group: ["**/_generated/server"],
  importNames: ["query", "mutation", "action"],
  message: "Build public functions with convex/functions.ts (userQuery, departmentMutation, …), which check the caller.",
};

const NEW_CONVEX_ERROR = {
  selector: "NewExpression[callee.name='ConvexError']",
  message: "Throw MaestroError({ code, message }) from convex/lib/errors.ts; nothing else builds a ConvexError.",
};

const DB_OUTSIDE_RECORDS = {
  selector: "CallExpression[callee.object.property.name='db'][callee.property.name=/^(query|insert|patch|replace|delete)$/]",
  message: "Query and write a table through its records module (convex/records/); outside records, read rows by id only.",
};

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      ".maestro/**",
      "tests/output/**",
      "convex/_generated/**",
      "tmp-smoke/**",
    ],
  },
  ...tseslint.configs.recommended,
  ...convexPlugin.configs.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
      globals: { ...globals.browser, ...globals.node },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // One auth layer: public functions are built only by convex/functions.ts's builders.
    files: ["convex/**/*.ts"],
    ignores: ["convex/functions.ts", "convex/_generated/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [RAW_BUILDERS] }],
      // Queries and writes go through a records module (docs/architecture.md); others read rows by id only.
      "no-restricted-syntax": ["error", NEW_CONVEX_ERROR, DB_OUTSIDE_RECORDS],
    },
  },
  {
    // Records: one noun's tables. They import only lib/, the schema, the validators, the generated code and other records.
    files: ["convex/records/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [RAW_BUILDERS, { regex: "^\\.\\./(?!(lib|_generated)/|schema$|validators$)", message: LAYERS + " A records module imports only lib/, the schema, the validators and other records." }] },
      ],
      "no-restricted-syntax": ["error", NEW_CONVEX_ERROR],
    },
  },
  {
    // Reactions: what one event sets off across nouns. They call records, lib/ and other reactions; never endpoints.
    files: ["convex/reactions/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [RAW_BUILDERS, { regex: "^\\.\\./(?!(lib|_generated|records)/|schema$|validators$)", message: LAYERS + " A reactions module imports records, lib/ and other reactions, never an endpoint." }] },
      ],
    },
  },
  {
    // lib/: plain helpers with no Convex context. They import only other lib/ modules, the validators and generated types.
    files: ["convex/lib/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [RAW_BUILDERS, { regex: "^\\.\\./(?!_generated/|validators$)", message: LAYERS + " lib/ holds plain helpers: it imports only lib/, the validators and generated types." }] }],
    },
  },
  {
    // One error convention: a person or an agent reads MaestroError({ code, message }) (convex/lib/errors.ts).
    files: ["src/**/*.{ts,tsx}", "tools/**/*.ts"],
    rules: { "no-restricted-syntax": ["error", NEW_CONVEX_ERROR] },
  },
  {
    files: ["convex/lib/errors.ts"],
    rules: { "no-restricted-syntax": "off" },
  },
  {
    files: ["src/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "warn",
    },
  },
);
