/** The chat's secret scanner: the interface and redaction (`scanner.ts`) and the one implementation (`rules.ts`). */
export * from "./scanner";
export * from "./rules";
