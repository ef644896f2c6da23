import { describe, expect, test } from "bun:test";
import { parseCatalog } from "../../../core/plugins/catalog.ts";
import { classifyMarketplaceSource } from "../../../core/plugins/marketplaces.ts";
import { isValidName, parseFeatureSpec, parseNpmSpec, parsePluginId } from "../../../core/plugins/names.ts";

describe("names and specs", () => {
  test("Claude Code's name rule", () => {
    for (const good of ["my-plugin", "code-review", "wordpress.com", "a", "x1"]) expect(isValidName(good)).toBe(true);
    for (const bad of ["-bad", "bad-", ".bad", "Bad", "under_score", "a..b", "", "x".repeat(65), "../x"]) expect(isValidName(bad)).toBe(false);
    expect(parsePluginId("review@team")).toEqual({ plugin: "review", marketplace: "team" });
    expect(parsePluginId("@scope/pkg")).toBeNull();
    expect(parsePluginId(`${"a".repeat(64)}@${"b".repeat(64)}`)).toBeNull();
  });

  test("the feature grammar and npm specs", () => {
    expect(parseFeatureSpec("pkg")).toEqual({ target: "pkg", features: null });
    expect(parseFeatureSpec("pkg[*]")).toEqual({ target: "pkg", features: "all" });
    expect(parseFeatureSpec("pkg[]")).toEqual({ target: "pkg", features: [] });
    expect(parseFeatureSpec("@s/pkg@1.2.3[a, b]")).toEqual({ target: "@s/pkg@1.2.3", features: ["a", "b"] });
    expect(parseNpmSpec("@s/pkg@^1.2")).toEqual({ name: "@s/pkg", range: "^1.2" });
    expect(parseNpmSpec("pkg")).toEqual({ name: "pkg", range: "latest" });
    for (const bad of ["pkg;rm", "$(x)", "pkg@1`id`", "../x", "Pkg"]) expect(parseNpmSpec(bad)).toBeNull();
  });

  test("marketplace sources are classified like the original", () => {
    expect(classifyMarketplaceSource("anthropics/claude-plugins-official", "/nonexistent")).toEqual({ type: "github", uri: "anthropics/claude-plugins-official" });
    expect(classifyMarketplaceSource("https://example.com/m/marketplace.json", "/")).toEqual({ type: "url", uri: "https://example.com/m/marketplace.json" });
    expect(classifyMarketplaceSource("https://github.com/o/r", "/").type).toBe("git");
    expect(classifyMarketplaceSource("git@github.com:o/r.git", "/").type).toBe("git");
    expect(classifyMarketplaceSource("file:///srv/m.git", "/").type).toBe("git");
    expect(classifyMarketplaceSource("./m", "/work")).toEqual({ type: "local", uri: "/work/m" });
  });
});

describe("catalogs in the wild", () => {
  test("every source kind, unknown keys and odd entries; one bad entry never costs the rest", () => {
    const catalog = parseCatalog(
      JSON.stringify({
        $schema: "x",
        name: "mixed",
        version: "2",
        owner: "not an object",
        metadata: { pluginRoot: "./plugins", extra: true },
        plugins: [
          { name: "rel", source: "./rel", author: "a string, not an object", keywords: "nor a list" },
          { name: "gh", source: { source: "github", repo: "o/r", ref: "v1", sha: "a".repeat(40) } },
          { name: "url", source: { source: "url", url: "https://x/r.git" } },
          { name: "sub", source: { source: "git-subdir", url: "https://x/m.git", path: "p/q" } },
          { name: "npm", source: { source: "npm", package: "@s/p", version: "^1" } },
          { name: "gh-url", source: { source: "github", repo: "https://github.com/o/r.git" } },
          { name: "bad-sha", source: { source: "github", repo: "o/r", sha: "not-hex" } },
          { name: "no-source" },
          "just a string",
        ],
      }),
      "test",
    );
    expect(catalog.plugins.map((p) => p.name)).toEqual(["rel", "gh", "url", "sub", "npm", "gh-url"]);
    expect(catalog.plugins[5]!.source).toMatchObject({ source: "github", repo: "o/r" });
    expect(catalog.skipped.map((s) => s.name)).toEqual(["bad-sha", "no-source", "(unnamed)"]);
    expect(catalog.pluginRoot).toBe("./plugins");
  });

  test("a catalog without a name or plugins, or with an invalid name, says what is wrong", () => {
    expect(() => parseCatalog("{", "m.json")).toThrow("m.json is not valid JSON");
    expect(() => parseCatalog(JSON.stringify({ plugins: [] }), "m.json")).toThrow('it needs "name" and a "plugins" array');
    expect(() => parseCatalog(JSON.stringify({ name: "Bad Name", plugins: [] }), "m.json")).toThrow("not a valid name");
  });
});
