/**
 * The secret scanner: the interface and redaction (`scanner.ts`), the one
 * implementation (`rules.ts`), the normalized view it also scans
 * (`normalize.ts`), the keyword pass that gates the rules (`keywords.ts`),
 * and cut-then-scan for stored user text (`userText.ts`:
 * `scanUserText`, `textTooLongMessage`).
 */
export * from "./scanner";
export * from "./rules";
export * from "./normalize";
export * from "./keywords";
export * from "./userText";
export * from "./minted";
