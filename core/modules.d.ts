/** Markdown imported `with { type: "text" }`: bundled into the binary as a string. */
declare module "*.md" {
  const text: string;
  export default text;
}

/** Turndown's browser build: the same API, without the HTML parser its Node build carries (see html-markdown.ts). */
declare module "turndown/lib/turndown.browser.es.js" {
  import TurndownService from "turndown";
  export default TurndownService;
}

/** The eval kernels' runner scripts (core/eval), imported `with { type: "text" }` and written out for the kernel to run. */
declare module "*.py" {
  const text: string;
  export default text;
}
declare module "*/runner.js" {
  const text: string;
  export default text;
}
