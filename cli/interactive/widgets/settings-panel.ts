import { getPath } from "../../../core/config/merge.ts";
import { activeProfile } from "../../../core/config/profiles.ts";
import { type SettingInfo, formatSetting, isSecretSetting, settingCatalog, shownSetting } from "../../../core/config/settings-catalog.ts";
import type { LoadedSettings } from "../../../core/config/settings.ts";
import { type SettingScope, type SettingTarget, settingFile, unsetSetting } from "../../../core/config/settings-write.ts";
import { describeError } from "../../../core/errors/omp-error.ts";
import { displayPath } from "../../../core/paths.ts";
import { notAppliedNote } from "../../../core/config/settings-write.ts";
import { writeSettingValue } from "../../shared/setting-write.ts";
import { type Key, keyId } from "../terminal/keys.ts";
import type { Panel } from "./panel.ts";
import { SelectList } from "./select-list.ts";
import { graphemes, paint, padText, truncateText, wrapSpans } from "../render/text.ts";
import type { Theme } from "../render/theme.ts";

/** A row of the screen: a setting, or one entry of a per-name map (tools.approval.bash). */
interface Row extends SettingInfo {
  /** The catalog entry the row belongs to (tools.approval for tools.approval.bash). */
  group: string;
}

export interface SettingsPanelOptions {
  cwd: string;
  /** Reads the settings files again into the running session and returns them (Runtime.reloadSettings). */
  reload: () => LoadedSettings;
  /** Names that per-name maps offer rows for (tools.approval.<tool>): the session's tools. */
  names: string[];
  changed: () => void;
}

type Mode = { kind: "list" } | { kind: "choose"; row: Row; list: SelectList<string | null> } | { kind: "edit"; row: Row; text: string; error?: string };

const SCOPE_WORDS: Record<SettingScope, string> = { global: "global", profile: "profile", project: "project" };

/**
 * `/settings`: every setting with its value, where that value comes from, its description and
 * allowed values; typing filters, Enter changes one in place (booleans toggle, enums pick, the
 * rest is typed and checked), Delete removes it from the file written to, Tab picks that file.
 * Writes go through `omp config set`'s code (cli/commands/config.ts), and the running session reads the
 * files again, so settings read at use time apply at once; the others say they need a restart.
 */
export class SettingsPanel implements Panel {
  private loaded: LoadedSettings;
  private rows: Row[];
  private filter = "";
  private selected = 0;
  private top = 0;
  private mode: Mode = { kind: "list" };
  private scopes: SettingScope[];
  private scope = 0;
  private message: { error: boolean; text: string } | undefined;
  private busy = false;

  constructor(private readonly options: SettingsPanelOptions) {
    this.loaded = options.reload();
    const profile = activeProfile();
    this.scopes = ["global", ...(profile ? (["profile"] as const) : []), "project"];
    this.rows = this.buildRows();
  }

  private target(): SettingTarget {
    const scope = this.scopes[this.scope]!;
    return { scope, cwd: this.options.cwd, ...(scope === "profile" ? { profile: activeProfile() } : {}) };
  }

  private buildRows(): Row[] {
    const rows: Row[] = [];
    for (const info of settingCatalog()) {
      if (info.kind === "map" && info.choices) {
        const set = getPath(this.loaded.settings, info.key.split("."));
        const names = [...new Set([...this.options.names, ...Object.keys((set as Record<string, unknown> | undefined) ?? {})])].sort();
        for (const name of names) rows.push({ ...info, key: `${info.key}.${name}`, kind: "enum", default: undefined, group: info.key });
      } else {
        rows.push({ ...info, group: info.key });
      }
    }
    return rows;
  }

  private visible(): Row[] {
    const words = this.filter.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length === 0) return this.rows;
    const matches = (text: string) => words.every((word) => text.toLowerCase().includes(word));
    // Keys that match come first, then settings whose description or value does.
    const byKey = this.rows.filter((row) => matches(row.key));
    const byText = this.rows.filter((row) => !byKey.includes(row) && matches(`${row.key} ${row.description} ${formatSetting(shownSetting(row.key, this.valueOf(row)))}`));
    return [...byKey, ...byText];
  }

  private valueOf(row: Row): unknown {
    return getPath(this.loaded.settings, row.key.split("."));
  }

  private sourceOf(row: Row): string {
    const layer = this.loaded.sourceOf(row.key);
    if (!layer) return "default";
    return layer.kind === "runtime" ? "flag" : layer.kind === "overlay" ? "--config" : layer.kind;
  }

  handleKey(key: Key): "close" | undefined {
    if (this.busy) return undefined;
    if (this.mode.kind === "choose") return this.chooseKey(this.mode, key);
    if (this.mode.kind === "edit") return this.editKey(this.mode, key);
    const items = this.visible();
    const row = items[this.selected];
    switch (keyId(key)) {
      case "escape":
      case "ctrl+c":
        return "close";
      case "up":
        this.selected = items.length === 0 ? 0 : (this.selected - 1 + items.length) % items.length;
        return undefined;
      case "down":
        this.selected = items.length === 0 ? 0 : (this.selected + 1) % items.length;
        return undefined;
      case "pageup":
        this.selected = Math.max(0, this.selected - 8);
        return undefined;
      case "pagedown":
        this.selected = Math.min(Math.max(0, items.length - 1), this.selected + 8);
        return undefined;
      case "tab":
        this.scope = (this.scope + 1) % this.scopes.length;
        this.message = undefined;
        return undefined;
      case "delete":
        if (row) this.run(row, null);
        return undefined;
      case "backspace":
        this.filter = graphemes(this.filter).slice(0, -1).join("");
        this.selected = 0;
        return undefined;
      case "enter":
        if (row) this.open(row);
        return undefined;
    }
    if (key.text !== undefined && !key.ctrl && !key.alt) {
      this.filter += key.text;
      this.selected = 0;
    }
    return undefined;
  }

  paste(text: string): void {
    if (this.mode.kind === "edit") this.mode.text += text.replace(/\r?\n/g, " ");
    else if (this.mode.kind === "list") this.filter += text.replace(/\s+/g, " ");
    this.options.changed();
  }

  /** Enter on a row: a boolean flips, an enum offers its values, anything else is typed. */
  private open(row: Row): void {
    this.message = undefined;
    const value = this.valueOf(row);
    if (row.kind === "boolean") return this.run(row, String(!(value as boolean)));
    if (row.kind === "enum" && row.choices) {
      const choices = [
        ...row.choices.map((choice) => ({ label: choice, value: choice as string | null, current: choice === value })),
        { label: "(unset)", detail: `remove it from ${displayPath(this.file(row) ?? "")}`, value: null },
      ];
      this.mode = { kind: "choose", row, list: new SelectList(row.key, choices, false) };
      return;
    }
    // A secret is typed anew: the editor never shows it.
    this.mode = { kind: "edit", row, text: value === undefined || isSecretSetting(row.key) ? "" : formatSetting(value) };
  }

  private chooseKey(mode: Extract<Mode, { kind: "choose" }>, key: Key): undefined {
    const result = mode.list.handleKey(key);
    if (result.type === "cancel") this.mode = { kind: "list" };
    if (result.type === "select") {
      this.mode = { kind: "list" };
      this.run(mode.row, result.value);
    }
    return undefined;
  }

  private editKey(mode: Extract<Mode, { kind: "edit" }>, key: Key): undefined {
    switch (keyId(key)) {
      case "escape":
      case "ctrl+c":
        this.mode = { kind: "list" };
        return undefined;
      case "enter":
        this.run(mode.row, mode.text);
        return undefined;
      case "backspace":
        mode.text = graphemes(mode.text).slice(0, -1).join("");
        return undefined;
      case "ctrl+u":
        mode.text = "";
        return undefined;
    }
    if (key.text !== undefined && !key.ctrl && !key.alt) mode.text += key.text;
    return undefined;
  }

  private file(row: Row): string | undefined {
    try {
      return settingFile(row.key, this.target());
    } catch {
      return undefined;
    }
  }

  /** Writes `raw` for the row (null: removes it from the scope's file), then reloads the session's settings. */
  private run(row: Row, raw: string | null): void {
    this.busy = true;
    void this.write(row, raw)
      .then((text) => {
        this.message = { error: false, text };
        if (this.mode.kind === "edit") this.mode = { kind: "list" };
      })
      .catch((error: unknown) => {
        const text = describeError(error);
        if (this.mode.kind === "edit") this.mode.error = text;
        else this.message = { error: true, text };
      })
      .finally(() => {
        this.busy = false;
        this.options.changed();
      });
  }

  private async write(row: Row, raw: string | null): Promise<string> {
    const target = this.target();
    let file: string;
    let what: string;
    if (raw === null) {
      file = settingFile(row.key, target);
      const removed = unsetSetting(row.key, target);
      what = removed ? `${row.key} removed from ${displayPath(file)}` : `${row.key} was not set in ${displayPath(file)}`;
    } else {
      const written = await writeSettingValue(row.key, raw, target);
      file = written.file;
      what = `${row.key} = ${formatSetting(shownSetting(row.key, written.value))} in ${displayPath(file)}`;
    }
    this.loaded = this.options.reload();
    const names = this.rows.length;
    this.rows = this.buildRows();
    if (this.rows.length !== names) this.selected = Math.max(0, this.visible().findIndex((candidate) => candidate.key === row.key));
    const note = raw === null ? undefined : notAppliedNote(row.key, file, this.loaded);
    return `${what}.${note ? ` But ${note}.` : ` ${row.live ? "Takes effect now." : "Restart omp for it to take effect."}`}`;
  }

  render(width: number, height: number, theme: Theme): string[] {
    const scope = this.scopes[this.scope]!;
    const file = (() => {
      try {
        return displayPath(settingFile("model", this.target()));
      } catch {
        return "";
      }
    })();
    const title = paint("Settings", theme.fg("accent", "bold"));
    const help = "type to filter · ↑↓ move · enter change · del unset · tab file · esc close";
    const rows = [`${title}  ${paint(truncateText(`writes ${SCOPE_WORDS[scope]} ${file} · ${help}`, Math.max(0, width - 10)), theme.fg("dim"))}`];
    if (this.mode.kind === "choose") {
      rows.push(...this.mode.list.render(width, Math.max(3, height - 3), theme));
      rows.push(...this.details(this.mode.row, width, theme));
      return rows;
    }
    const items = this.visible();
    const listRows = Math.max(1, height - 7);
    if (this.selected >= items.length) this.selected = Math.max(0, items.length - 1);
    if (this.selected < this.top) this.top = this.selected;
    if (this.selected >= this.top + listRows) this.top = this.selected - listRows + 1;
    this.top = Math.max(0, Math.min(this.top, Math.max(0, items.length - listRows)));
    const keyWidth = Math.min(Math.max(...items.map((row) => row.key.length), 10) + 2, Math.floor(width * 0.45));
    const valueWidth = Math.max(8, Math.min(24, width - keyWidth - 14));
    if (items.length === 0) rows.push(paint("  no setting matches", theme.fg("dim")));
    for (const [offset, row] of items.slice(this.top, this.top + listRows).entries()) {
      const index = this.top + offset;
      const line = `${index === this.selected ? "› " : "  "}${padText(truncateText(row.key, keyWidth - 1), keyWidth)}${padText(truncateText(formatSetting(shownSetting(row.key, this.valueOf(row))), valueWidth - 1), valueWidth)}${this.sourceOf(row)}`;
      rows.push(index === this.selected ? paint(padText(truncateText(line, width), width), `${theme.selected()};${theme.fg("accent", "bold")}`) : truncateText(line, width));
    }
    const row = items[this.selected];
    if (row) rows.push(...this.details(row, width, theme));
    if (this.mode.kind === "edit") {
      rows.push(`${paint(`${this.mode.row.key}: `, theme.fg("accent"))}${this.mode.text}█`);
      rows.push(paint(truncateText(this.mode.error ?? "enter write · esc cancel · ctrl+u clear", width), theme.fg(this.mode.error ? "error" : "dim")));
    } else {
      rows.push(paint(`filter: ${this.filter}`, theme.fg("muted")) + (items.length < this.rows.length ? paint(`  (${items.length} of ${this.rows.length})`, theme.fg("dim")) : ""));
      if (this.message) rows.push(paint(truncateText(this.message.text, width), theme.fg(this.message.error ? "error" : "success")));
    }
    return rows;
  }

  /** The selected setting: what it does, what it may be, where its value comes from, when a change applies. */
  private details(row: Row, width: number, theme: Theme): string[] {
    const allowed = row.choices ? row.choices.join(" | ") : row.kind === "boolean" ? "true | false" : row.kind === "list" ? "list: a, b or JSON" : (row.range ?? row.kind);
    const facts = [
      `allowed: ${allowed}`,
      `default: ${formatSetting(row.default)}`,
      `from: ${this.sourceOf(row)}`,
      row.userOnly ? "user files only" : "",
      row.live ? "applies now" : "needs a restart",
    ].filter(Boolean);
    const description = wrapText(row.description || "(no description)", width).slice(0, 2);
    return [...description.map((line) => paint(line, theme.fg("muted"))), paint(truncateText(facts.join(" · "), width), theme.fg("dim"))];
  }
}

/** Plain text in lines of at most `width` cells. */
function wrapText(text: string, width: number): string[] {
  return wrapSpans([{ text, style: "" }], width).map((line) => line.map((span) => span.text).join(""));
}
