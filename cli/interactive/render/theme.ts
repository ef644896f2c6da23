/**
 * Colours of the interactive mode. A theme maps names (accent, diffAdded, syntaxKeyword, ...) to
 * SGR parameter strings; components never write colour codes themselves, so NO_COLOR and the
 * terminal's colour depth are decided here once.
 */

export type Appearance = "dark" | "light";
export type ColorDepth = "truecolor" | "256" | "none";

const PALETTES = {
  dark: {
    accent: "#7aa2f7",
    muted: "#8089a8",
    dim: "#5c6380",
    success: "#9ece6a",
    error: "#f7768e",
    warning: "#e0af68",
    border: "#3b4261",
    thinking: "#737aa2",
    prompt: "#bb9af7",
    heading: "#7dcfff",
    code: "#c3e88d",
    link: "#7aa2f7",
    diffAdded: "#9ece6a",
    diffRemoved: "#f7768e",
    bashMode: "#2ac3de",
    selected: "#283457",
    comment: "#5f6996",
    keyword: "#bb9af7",
    function: "#7aa2f7",
    string: "#9ece6a",
    number: "#ff9e64",
    type: "#2ac3de",
    operator: "#89ddff",
  },
  light: {
    accent: "#2e59c8",
    muted: "#6a6f85",
    dim: "#8f94a8",
    success: "#3f7d1a",
    error: "#c4314b",
    warning: "#9a6700",
    border: "#c8cbd9",
    thinking: "#7a7f96",
    prompt: "#7a3ec8",
    heading: "#0f6e94",
    code: "#39731c",
    link: "#2e59c8",
    diffAdded: "#2f7d16",
    diffRemoved: "#c4314b",
    bashMode: "#00799c",
    selected: "#dfe5f7",
    comment: "#8a8fa6",
    keyword: "#8a3fc4",
    function: "#2e59c8",
    string: "#3f7d1a",
    number: "#b35400",
    type: "#00799c",
    operator: "#3b6d8f",
  },
} as const;

type ColorName = keyof (typeof PALETTES)["dark"];

const ATTRS = { bold: "1", dim: "2", italic: "3", underline: "4", inverse: "7", strike: "9" } as const;
type Attr = keyof typeof ATTRS;

export class Theme {
  constructor(
    /** Changed in place when the `theme` setting changes (/settings): blocks redraw on it. */
    public appearance: Appearance,
    readonly depth: ColorDepth,
  ) {}

  get colored(): boolean {
    return this.depth !== "none";
  }

  /** The SGR parameters for a foreground colour plus attributes; attributes survive NO_COLOR. */
  fg(name: ColorName | null, ...attrs: Attr[]): string {
    const parts: string[] = attrs.map((a) => ATTRS[a]);
    if (name && this.depth !== "none") parts.push(colorCode(PALETTES[this.appearance][name], this.depth, 38));
    return parts.join(";");
  }

  /** A background: the selected row of a list. Without colour, reverse video marks it instead. */
  selected(): string {
    if (this.depth === "none") return ATTRS.inverse;
    return colorCode(PALETTES[this.appearance].selected, this.depth, 48);
  }
}

/** `38;2;r;g;b` or the nearest of the 256-colour cube and grey ramp. */
function colorCode(hex: string, depth: ColorDepth, base: 38 | 48): string {
  const r = parseInt(hex.slice(1, 3), 16);
  const g = parseInt(hex.slice(3, 5), 16);
  const b = parseInt(hex.slice(5, 7), 16);
  if (depth === "truecolor") return `${base};2;${r};${g};${b}`;
  return `${base};5;${to256(r, g, b)}`;
}

function to256(r: number, g: number, b: number): number {
  const level = (v: number) => (v < 48 ? 0 : v < 115 ? 1 : Math.floor((v - 35) / 40));
  const cube = [0, 95, 135, 175, 215, 255];
  const [cr, cg, cb] = [level(r), level(g), level(b)];
  const cubeIndex = 16 + 36 * cr + 6 * cg + cb;
  const cubeDistance = (cube[cr]! - r) ** 2 + (cube[cg]! - g) ** 2 + (cube[cb]! - b) ** 2;
  const grey = Math.round((r + g + b) / 3);
  const greyLevel = Math.min(23, Math.max(0, Math.round((grey - 8) / 10)));
  const greyValue = 8 + greyLevel * 10;
  const greyDistance = (greyValue - r) ** 2 + (greyValue - g) ** 2 + (greyValue - b) ** 2;
  return greyDistance < cubeDistance ? 232 + greyLevel : cubeIndex;
}

type Env = Record<string, string | undefined>;

/** NO_COLOR (any non-empty value) wins; then COLORTERM for 24-bit; everything else gets 256 colours. */
export function colorDepth(env: Env): ColorDepth {
  if (env.NO_COLOR) return "none";
  if (env.TERM === "dumb") return "none";
  const colorterm = env.COLORTERM?.toLowerCase();
  if (colorterm === "truecolor" || colorterm === "24bit") return "truecolor";
  return "256";
}

/**
 * Dark or light: `OMP_THEME` when set, then the `theme` setting unless it is `auto`, then the
 * background the terminal reported (OSC 11), then `COLORFGBG` (its last field is the background
 * palette index: below 7 or 8 is dark), then dark.
 */
export function chooseAppearance(env: Env, reportedBackground: [number, number, number] | undefined, setting: "auto" | Appearance = "auto"): Appearance {
  const forced = env.OMP_THEME?.toLowerCase();
  if (forced === "dark" || forced === "light") return forced;
  if (setting !== "auto") return setting;
  if (reportedBackground) return luminance(reportedBackground) > 0.5 ? "light" : "dark";
  const colorfgbg = env.COLORFGBG?.split(";").pop();
  if (colorfgbg !== undefined && /^\d+$/.test(colorfgbg)) {
    const index = Number(colorfgbg);
    return index === 7 || index >= 9 ? "light" : "dark";
  }
  return "dark";
}

/** Relative luminance (0..1) of an sRGB colour given as 0..1 channels. */
function luminance([r, g, b]: [number, number, number]): number {
  const linear = (c: number) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** Parses an OSC 11 reply's colour: `rgb:RRRR/GGGG/BBBB` (1 to 4 hex digits a channel) or `#RRGGBB`. */
export function parseOscColor(value: string): [number, number, number] | undefined {
  const rgb = /^rgba?:([0-9a-f]{1,4})\/([0-9a-f]{1,4})\/([0-9a-f]{1,4})/i.exec(value);
  if (rgb) {
    const channel = (hex: string) => parseInt(hex, 16) / (16 ** hex.length - 1);
    return [channel(rgb[1]!), channel(rgb[2]!), channel(rgb[3]!)];
  }
  const hash = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(value);
  if (hash) return [parseInt(hash[1]!, 16) / 255, parseInt(hash[2]!, 16) / 255, parseInt(hash[3]!, 16) / 255];
  return undefined;
}
