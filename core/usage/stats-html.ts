import type { SessionStats } from "./stats.ts";

/**
 * `omp stats --html`: one self-contained page (no network, no files beside it) with the numbers of
 * `omp stats --json` embedded as data and drawn by a small script into SVG charts: tokens, cost,
 * requests and errors per day, the models, the projects and the tools. Every drawn mark carries
 * its value in `data-value`, so what the page shows can be read back and checked.
 */
export function statsHtml(stats: SessionStats, generated: Date = new Date()): string {
  // `<` escaped so no text in the data (a project path, a model name) can close the script element.
  const data = JSON.stringify({ stats, generated: generated.toISOString() }).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>omp stats since ${stats.since}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>omp stats</h1><p id="range"></p></header>
<section id="cards" class="cards"></section>
<section><h2>Tokens per day <span class="key-a">■ in</span> <span class="key-b">■ out</span></h2><div class="chart" id="tokens-by-day"></div></section>
<section><h2>Cost per day</h2><div class="chart" id="cost-by-day"></div></section>
<section><h2>Requests and errors per day <span class="key-a">■ requests</span> <span class="key-bad">■ errors</span></h2><div class="chart" id="requests-by-day"></div></section>
<section><h2>Models</h2><div id="models"></div></section>
<section class="pair"><div><h2>Sessions per project</h2><div class="chart" id="projects"></div></div><div><h2>Tool calls</h2><div class="chart" id="tools"></div></div></section>
<script type="application/json" id="omp-stats">${data}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1d2125; --muted: #5f6b76; --bg: #fbfbfc; --card: #fff; --line: #e3e6ea; --a: #2f6fde; --b: #e08a2c; --bad: #d23c3c; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e9ec; --muted: #98a3ad; --bg: #15181b; --card: #1d2125; --line: #2c3238; --a: #6ea1ff; --b: #f0a955; --bad: #ff6b6b; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1100px; padding: 24px; font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
h1 { margin: 0; font-size: 22px; } h2 { font-size: 15px; margin: 24px 0 8px; color: var(--muted); font-weight: 600; }
header p { margin: 4px 0 0; color: var(--muted); }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 10px; margin-top: 18px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; }
.card b { display: block; font-size: 20px; } .card span { color: var(--muted); font-size: 12px; }
.chart svg { width: 100%; height: auto; background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
.chart text { fill: var(--muted); font-size: 11px; } .a { fill: var(--a); } .b { fill: var(--b); } .bad { fill: var(--bad); }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; } @media (max-width: 760px) { .pair { grid-template-columns: 1fr; } }
table { width: 100%; border-collapse: collapse; background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
th, td { text-align: right; padding: 6px 10px; border-bottom: 1px solid var(--line); } th:first-child, td:first-child { text-align: left; }
th { color: var(--muted); font-weight: 600; font-size: 12px; }
.key-a { color: var(--a); } .key-b { color: var(--b); } .key-bad { color: var(--bad); } .empty { color: var(--muted); padding: 12px; }
`;

/** Draws the page from the embedded data; plain DOM and SVG, nothing fetched. */
const SCRIPT = `
"use strict";
const { stats, generated } = JSON.parse(document.getElementById("omp-stats").textContent);
const NS = "http://www.w3.org/2000/svg";
const count = (n) => n >= 1e9 ? (n / 1e9).toFixed(1) + "B" : n >= 1e6 ? (n / 1e6).toFixed(1) + "M" : n >= 1e3 ? (n / 1e3).toFixed(1) + "k" : String(n);
const dollars = (n) => "$" + (n >= 100 ? n.toFixed(0) : n.toFixed(2));
const percent = (part, whole) => whole > 0 ? (100 * part / whole).toFixed(1) + "%" : "–";
function el(name, attrs, parent, ns) {
  const node = ns ? document.createElementNS(NS, name) : document.createElement(name);
  for (const [key, value] of Object.entries(attrs || {})) key === "text" ? (node.textContent = value) : node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}
const svg = (name, attrs, parent) => el(name, attrs, parent, true);
function mark(parent, attrs, key, value, label) {
  const rect = svg("rect", { ...attrs, "data-key": key, "data-value": value }, parent);
  svg("title", { text: label }, rect);
  return rect;
}
document.getElementById("range").textContent = "Since " + stats.since + " · " + stats.sessions + " sessions (+" + stats.subagentSessions + " subagent) in " + stats.projects + " project" + (stats.projects === 1 ? "" : "s") + " · generated " + generated.slice(0, 16).replace("T", " ") + " UTC";
const t = stats.total;
const cards = [["sessions", stats.sessions + stats.subagentSessions, String(stats.sessions + stats.subagentSessions)], ["requests", t.requests, String(t.requests)], ["tokens in", t.input, count(t.input)], ["tokens out", t.output, count(t.output)], ["cost", t.cost, dollars(t.cost)], ["tool calls", t.toolCalls, String(t.toolCalls)], ["errors", t.errors, String(t.errors)], ["cache hit rate", t.input > 0 ? t.cacheRead / t.input : 0, percent(t.cacheRead, t.input)]];
for (const [name, value, shown] of cards) {
  const card = el("div", { class: "card", "data-key": name, "data-value": value }, document.getElementById("cards"));
  el("b", { text: shown }, card);
  el("span", { text: name }, card);
}
function byDay(target, series, format) {
  const days = Object.keys(stats.byDay).sort();
  const host = document.getElementById(target);
  if (days.length === 0) return el("div", { class: "empty", text: "No requests in this period." }, host);
  const W = 1000, H = 220, left = 56, bottom = 28, top = 12;
  const max = Math.max(1e-9, ...days.map((day) => series.reduce((sum, s) => sum + (s.stack ? s.value(stats.byDay[day]) : 0), 0)), ...days.map((day) => Math.max(...series.map((s) => s.value(stats.byDay[day])))));
  const chart = svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": target }, host);
  for (const f of [0, 0.5, 1]) {
    const y = top + (H - top - bottom) * (1 - f);
    svg("line", { x1: left, x2: W - 8, y1: y, y2: y, stroke: "currentColor", "stroke-opacity": 0.12 }, chart);
    svg("text", { x: left - 6, y: y + 4, "text-anchor": "end", text: format(max * f) }, chart);
  }
  const slot = (W - left - 8) / days.length, width = Math.max(2, Math.min(40, slot * 0.7) / (series.some((s) => s.stack) ? 1 : series.length));
  days.forEach((day, i) => {
    const x0 = left + slot * i + (slot - width * (series.some((s) => s.stack) ? 1 : series.length)) / 2;
    let stacked = 0;
    series.forEach((s, j) => {
      const value = s.value(stats.byDay[day]);
      const h = (H - top - bottom) * value / max;
      const x = s.stack ? x0 : x0 + width * j;
      const y = H - bottom - h - (s.stack ? stacked : 0);
      if (s.stack) stacked += h;
      mark(chart, { x, y, width, height: Math.max(0, h), class: s.class, "data-day": day, "data-series": s.name }, target + ":" + s.name + ":" + day, value, day + " " + s.name + ": " + format(value));
    });
    if (days.length <= 16 || i % Math.ceil(days.length / 16) === 0) svg("text", { x: left + slot * i + slot / 2, y: H - 8, "text-anchor": "middle", text: day.slice(5) }, chart);
  });
}
byDay("tokens-by-day", [{ name: "input", class: "a", stack: true, value: (d) => d.input }, { name: "output", class: "b", stack: true, value: (d) => d.output }], count);
byDay("cost-by-day", [{ name: "cost", class: "a", value: (d) => d.cost }], dollars);
byDay("requests-by-day", [{ name: "requests", class: "a", value: (d) => d.requests }, { name: "errors", class: "bad", value: (d) => d.errors }], (n) => String(Math.round(n)));
function bars(target, rows, format) {
  const host = document.getElementById(target);
  if (rows.length === 0) return el("div", { class: "empty", text: "Nothing yet." }, host);
  const W = 520, row = 24, left = 180, H = rows.length * row + 8;
  const max = Math.max(1, ...rows.map(([, value]) => value));
  const chart = svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": target }, host);
  rows.forEach(([name, value], i) => {
    const y = 4 + i * row;
    svg("text", { x: left - 8, y: y + 15, "text-anchor": "end", text: name.length > 28 ? "…" + name.slice(-27) : name }, chart);
    mark(chart, { x: left, y: y + 3, height: row - 8, width: Math.max(1, (W - left - 60) * value / max), class: "a", "data-name": name }, target + ":" + name, value, name + ": " + format(value));
    svg("text", { x: left + (W - left - 60) * value / max + 6, y: y + 15, text: format(value) }, chart);
  });
}
bars("projects", Object.entries(stats.byProject).map(([cwd, p]) => [cwd, p.sessions]).sort((a, b) => b[1] - a[1]).slice(0, 20), String);
bars("tools", Object.entries(stats.tools).sort((a, b) => b[1] - a[1]).slice(0, 20), String);
const models = Object.entries(stats.byModel).sort(([, a], [, b]) => b.cost - a.cost || b.output - a.output);
const host = document.getElementById("models");
if (models.length === 0) el("div", { class: "empty", text: "No requests in this period." }, host);
else {
  const table = el("table", {}, host);
  const head = el("tr", {}, el("thead", {}, table));
  for (const name of ["model", "requests", "tokens in", "tokens out", "cache hit", "cost", "tool calls", "errors"]) el("th", { text: name }, head);
  const body = el("tbody", {}, table);
  for (const [model, m] of models) {
    const tr = el("tr", { "data-model": model }, body);
    el("td", { text: model }, tr);
    for (const [key, value, shown] of [["requests", m.requests, String(m.requests)], ["input", m.input, count(m.input)], ["output", m.output, count(m.output)], ["cacheHit", m.input > 0 ? m.cacheRead / m.input : 0, percent(m.cacheRead, m.input)], ["cost", m.cost, dollars(m.cost)], ["toolCalls", m.toolCalls, String(m.toolCalls)], ["errors", m.errors, String(m.errors)]]) el("td", { text: shown, "data-key": key, "data-value": value }, tr);
  }
}
document.body.setAttribute("data-drawn", "true");
`;
