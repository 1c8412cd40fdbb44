// jsdom ships without types (and @types/jsdom is not installed): the benchmark uses only its constructor and window.
declare module "jsdom" {
  export class JSDOM {
    constructor(html: string, options?: { pretendToBeVisual?: boolean });
    readonly window: Window & typeof globalThis;
  }
}
