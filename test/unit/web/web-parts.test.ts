// The web and read parts that decide things on their own: which addresses are private, which
// hosts bypass the proxy, how a body's charset is found, how read paths split into selectors, and
// the big-page path of the HTML converter.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseCsv } from "../../../core/documents/sheets.ts";
import { parseLineSelector, resolveReadTarget, SelectorError } from "../../../core/tools/read-path.ts";
import { hostAllowed, privateAddressKind } from "../../../core/web/address.ts";
import { hostsIn } from "../../../core/permissions/egress.ts";
import { decodeBody } from "../../../core/web/charset.ts";
import { htmlToMarkdown } from "../../../core/web/html-markdown.ts";
import { proxyFor } from "../../../core/web/proxy.ts";
import { tempDir } from "../../support/temp.ts";

describe("addresses", () => {
  test("loopback, private, link-local, CGNAT, unique-local and mapped addresses are private; public ones are not", () => {
    expect(privateAddressKind("127.0.0.1")).toBe("loopback");
    expect(privateAddressKind("10.1.2.3")).toBe("private");
    expect(privateAddressKind("172.16.0.1")).toBe("private");
    expect(privateAddressKind("172.32.0.1")).toBeUndefined();
    expect(privateAddressKind("192.168.1.1")).toBe("private");
    expect(privateAddressKind("169.254.169.254")).toBe("link-local");
    expect(privateAddressKind("100.64.0.1")).toBe("carrier-grade NAT");
    expect(privateAddressKind("0.0.0.0")).toBe("unspecified");
    expect(privateAddressKind("::1")).toBe("loopback");
    expect(privateAddressKind("fd00::1")).toBe("unique-local (private)");
    expect(privateAddressKind("fe80::1")).toBe("link-local");
    expect(privateAddressKind("::ffff:10.0.0.1")).toBe("private");
    expect(privateAddressKind("93.184.216.34")).toBeUndefined();
    expect(privateAddressKind("2606:4700::1111")).toBeUndefined();
  });

  test("every IPv6 form carrying an IPv4 address is judged by that address; ULA, link-local, site-local, multicast by their prefix", () => {
    for (const loopback of ["::ffff:127.0.0.1", "::ffff:7f00:1", "[::ffff:7f00:1]", "::127.0.0.1", "::ffff:0:7f00:1", "64:ff9b::7f00:1", "2002:7f00:1::", "0:0:0:0:0:0:0:1", "2001:0:4136:e378:8000:63bf:80ff:fffe"]) {
      expect(privateAddressKind(loopback), loopback).toBe("loopback");
    }
    expect(privateAddressKind("::ffff:a9fe:a9fe")).toBe("link-local");
    expect(privateAddressKind("64:ff9b:1::a00:1")).toBe("NAT64 local-use (private)");
    expect(privateAddressKind("fe80::1%eth0")).toBe("link-local");
    expect(privateAddressKind("fd12:3456::1")).toBe("unique-local (private)");
    expect(privateAddressKind("fec0::1")).toBe("site-local (private)");
    expect(privateAddressKind("ff02::1")).toBe("multicast");
    expect(privateAddressKind("64:ff9b::808:808")).toBeUndefined();
    expect(privateAddressKind("2002:808:808::1")).toBeUndefined();
  });

  test("the hosts a prompt names: URL hosts, bare domain names (not file names), IPv4 addresses", () => {
    expect(hostsIn("see https://user@Docs.Example.com:8443/x, then example.org and 10.0.0.5; edit README.md and src/app.ts; http://[::1]:3000/")).toEqual(["docs.example.com", "example.org", "10.0.0.5", "::1"]);
  });

  test("allowHosts matches a host, host:port and [v6]:port", () => {
    expect(hostAllowed(["127.0.0.1"], "127.0.0.1", "8080")).toBe(true);
    expect(hostAllowed(["intranet:8080"], "INTRANET", "8080")).toBe(true);
    expect(hostAllowed(["intranet:8080"], "intranet", "80")).toBe(false);
    expect(hostAllowed(["[::1]:3000"], "[::1]", "3000")).toBe(true);
    expect(hostAllowed([], "127.0.0.1", "80")).toBe(false);
  });
});

describe("proxies", () => {
  const env = { HTTPS_PROXY: "http://proxy:3128", http_proxy: "http://plain:8080", NO_PROXY: "localhost,.corp.example,10.0.0.1:8443" };
  test("HTTPS_PROXY for https, HTTP_PROXY (either case) for http, NO_PROXY names, suffixes and ports bypass", () => {
    expect(proxyFor(new URL("https://example.com/"), env)).toBe("http://proxy:3128");
    expect(proxyFor(new URL("http://example.com/"), env)).toBe("http://plain:8080");
    expect(proxyFor(new URL("http://localhost:9/"), env)).toBeUndefined();
    expect(proxyFor(new URL("https://git.corp.example/"), env)).toBeUndefined();
    expect(proxyFor(new URL("https://corp.example/"), env)).toBeUndefined();
    expect(proxyFor(new URL("https://10.0.0.1:8443/"), env)).toBeUndefined();
    expect(proxyFor(new URL("https://10.0.0.1/"), env)).toBe("http://proxy:3128");
    expect(proxyFor(new URL("https://example.com/"), { ...env, NO_PROXY: "*" })).toBeUndefined();
    expect(proxyFor(new URL("https://example.com/"), {})).toBeUndefined();
  });
});

describe("charsets", () => {
  const cafe1252 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80]);
  test("BOM, then the header, then <meta>; undeclared bytes that are not UTF-8 are windows-1252", () => {
    expect(decodeBody(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]), "text/plain; charset=latin1", false)).toBe("hi");
    expect(decodeBody(new Uint8Array([0xff, 0xfe, 0x68, 0x00]), "", false)).toBe("h");
    expect(decodeBody(cafe1252, "text/html; charset=windows-1252", true)).toBe("café €");
    const meta = new TextEncoder().encode('<meta charset="iso-8859-1">');
    expect(decodeBody(new Uint8Array([...meta, ...cafe1252]), "text/html", true)).toEndWith("café €");
    expect(decodeBody(cafe1252, "text/plain", false)).toBe("café €");
    expect(decodeBody(new TextEncoder().encode("café"), "text/plain", false)).toBe("café");
  });
});

describe("read paths", () => {
  test("selectors: N, N-, A-B, A..B, A+C, L-prefixed; invalid ones say why", () => {
    expect(parseLineSelector("50")).toEqual({ offset: 50 });
    expect(parseLineSelector("50-")).toEqual({ offset: 50 });
    expect(parseLineSelector("5-16")).toEqual({ offset: 5, limit: 12 });
    expect(parseLineSelector("5..16")).toEqual({ offset: 5, limit: 12 });
    expect(parseLineSelector("L5+3")).toEqual({ offset: 5, limit: 3 });
    expect(parseLineSelector("raw")).toBeUndefined();
    expect(() => parseLineSelector("0")).toThrow(SelectorError);
    expect(() => parseLineSelector("9-3")).toThrow("the end (3) is before the start (9)");
    expect(() => parseLineSelector("4+0")).toThrow("at least 1");
  });

  test("an existing path wins over a selector; archives and databases take their own suffixes", () => {
    const dir = tempDir("omp-read-path-");
    writeFileSync(join(dir, "a.txt"), "x\n");
    writeFileSync(join(dir, "b:7"), "colon\n");
    writeFileSync(join(dir, "bundle.zip"), "PK");
    writeFileSync(join(dir, "app.db"), "SQLite format 3\0");
    mkdirSync(join(dir, "C:"), { recursive: true });
    writeFileSync(join(dir, "C:", "x.txt"), "windows-like\n");
    expect(resolveReadTarget(dir, "a.txt:3-4")).toEqual({ path: join(dir, "a.txt"), range: { offset: 3, limit: 2 } });
    expect(resolveReadTarget(dir, "b:7")).toEqual({ path: join(dir, "b:7") });
    expect(resolveReadTarget(dir, "C:/x.txt")).toEqual({ path: join(dir, "C:", "x.txt") });
    expect(resolveReadTarget(dir, "a.txt:raw")).toEqual({ path: join(dir, "a.txt"), raw: true });
    expect(resolveReadTarget(dir, "bundle.zip:src/main.ts:10+5")).toEqual({ path: join(dir, "bundle.zip"), member: "src/main.ts", range: { offset: 10, limit: 5 } });
    const db = resolveReadTarget(dir, "app.db:users?limit=5");
    expect(db.sqlite?.table).toBe("users");
    expect(db.sqlite?.params.get("limit")).toBe("5");
    expect(resolveReadTarget(dir, "app.db?q=SELECT a:b FROM t").sqlite?.params.get("q")).toBe("SELECT a:b FROM t");
    expect(resolveReadTarget(dir, "missing.txt:5")).toEqual({ path: join(dir, "missing.txt:5") });
  });
});

describe("CSV", () => {
  test("quoted fields, doubled quotes, CRLF and a line break inside quotes", () => {
    expect(parseCsv('a,"b ""q"", c"\r\n1,"x\ny"\n')).toEqual([["a", 'b "q", c'], ["1", "x\ny"]]);
  });
});

describe("HTML to Markdown", () => {
  test("a page too big for Readability keeps its <main> and drops the chrome around and inside it", async () => {
    const sections = Array.from({ length: 1500 }, (_, i) => `<h2>Part ${i}</h2><p>Body of part ${i} with <a href="/p/${i}">a link</a>.</p><ul><li>a</li><li>b</li></ul>`).join("");
    const html = `<html><head><title>Big</title></head><body><nav>SITE NAV</nav><main><header><h1>Manual</h1></header><aside>ON THIS PAGE</aside>${sections}</main><footer>SITE FOOTER</footer></body></html>`;
    const page = await htmlToMarkdown(html, "https://docs.example/manual/");
    expect(page.wholePage).toBe(false);
    expect(page.markdown).toStartWith("# Manual");
    expect(page.markdown).toContain("Body of part 1499 with [a link](https://docs.example/p/1499).");
    for (const chrome of ["SITE NAV", "ON THIS PAGE", "SITE FOOTER"]) expect(page.markdown).not.toContain(chrome);
  });
});
