/** Markdown imported `with { type: "text" }`: bundled into the binary as a string. */
declare module "*.md" {
  const text: string;
  export default text;
}
