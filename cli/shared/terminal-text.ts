/**
 * Text from the model, a tool or a server, made safe to write to a terminal: escape sequences
 * (CSI cursor and erase games, OSC 52 clipboard writes, OSC 0/2 titles, OSC 8 links, DCS, APC, PM,
 * SOS strings) and control characters other than tab and line feed are removed, 8-bit C1 controls
 * included, so nothing in the text can act on the terminal. The colours omp adds come after this.
 */
export function stripTerminalControls(text: string): string {
  return text
    .replace(/\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[P_^X][^\x1b]*(?:\x1b\\)?)?/g, "")
    .replace(/[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]/g, "");
}

/** As stripTerminalControls, with tabs as four spaces: a renderer that measures widths cannot have the terminal move to tab stops. */
export function sanitize(text: string): string {
  return stripTerminalControls(text.replace(/\t/g, "    "));
}
