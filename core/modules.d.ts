declare module "turndown-plugin-gfm" {
  import type TurndownService from "turndown";
  export const gfm: TurndownService.Plugin;
}

/** Markdown imported `with { type: "text" }`: bundled into the binary as a string. */
declare module "*.md" {
  const text: string;
  export default text;
}
