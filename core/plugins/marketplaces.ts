import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { OmpError, describeError } from "../errors/omp-error.ts";
import { expandHome } from "../paths.ts";
import { type Catalog, findCatalogFile, parseCatalog, readCatalogFile } from "./catalog.ts";
import { cloneRepo, githubUrl, pullRepo } from "./git.ts";
import { checkName } from "./names.ts";
import { marketplaceCacheDir, marketplacesFile } from "./paths.ts";
import { type MarketplaceRecord, readMarketplaces, writeState } from "./state.ts";
import { stagingDir, swapInto } from "./staging.ts";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import { extractArchive } from "./archive.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

type SourceType = MarketplaceRecord["sourceType"];

/** How `marketplace add` reads its argument, in the original's order. */
export function classifyMarketplaceSource(source: string, cwd: string): { type: SourceType; uri: string } {
  if (/^https?:\/\/.+\.json([?#].*)?$/i.test(source)) return { type: "url", uri: source };
  if (/^(https?|ssh|git|file):\/\//i.test(source) || /^[\w.-]+@[\w.-]+:/.test(source)) return { type: "git", uri: source };
  const local = resolve(cwd, expandHome(source));
  // A marketplace copied to an air-gapped machine as one archive.
  if (/\.(tgz|tar\.gz)$/i.test(source) && existsSync(local)) return { type: "archive", uri: local };
  if (source.startsWith(".") || source.startsWith("/") || source.startsWith("~") || existsSync(local)) return { type: "local", uri: local };
  if (/^[\w.-]+\/[\w.-]+$/.test(source)) return { type: "github", uri: source };
  throw new OmpError(`"${source}" is not a marketplace source: give owner/repo, a git URL, a folder, or a URL to a marketplace.json`, { exitCode: EXIT_USAGE });
}

/** The folder relative plugin sources resolve in; null for a catalog fetched by URL, which has none. */
export function marketplaceRoot(record: MarketplaceRecord): string | null {
  return record.sourceType === "url" ? null : dirname(dirname(record.catalogPath));
}

export function loadCatalog(record: MarketplaceRecord): Catalog {
  if (!existsSync(record.catalogPath)) {
    throw new OmpError(`the catalog of marketplace ${record.name} is missing (${record.catalogPath}); run \`omp plugin marketplace update ${record.name}\``);
  }
  return readCatalogFile(record.catalogPath);
}

export function findMarketplace(name: string): MarketplaceRecord {
  const record = readMarketplaces().marketplaces.find((item) => item.name === name);
  if (!record) throw new OmpError(`no marketplace named ${name}; see \`omp plugin marketplace list\`, or add it with \`omp plugin marketplace add <source>\``);
  return record;
}

async function fetchCatalogUrl(url: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new OmpError(`could not fetch ${url} (${describeError(error)})`);
  }
  if (!response.ok) throw new OmpError(`${url} answered ${response.status}; check the URL`);
  return response.text();
}

/** Fetches a git or url marketplace into a staging dir; returns where its catalog is there. */
async function fetchInto(type: SourceType, uri: string): Promise<{ dir: string; catalog: Catalog; file: string }> {
  const dir = stagingDir();
  try {
    if (type === "url") {
      const text = await fetchCatalogUrl(uri);
      const catalog = parseCatalog(text, uri);
      mkdirSync(join(dir, ".claude-plugin"), { recursive: true });
      writeFileAtomic(join(dir, ".claude-plugin", "marketplace.json"), text);
      return { dir, catalog, file: join(".claude-plugin", "marketplace.json") };
    }
    const repo = join(dir, "repo");
    if (type === "archive") {
      mkdirSync(repo);
      // Packed with or without a top folder: unpack whole, then find the catalog at the top or one down.
      await extractArchive(uri, repo, uri, 0);
      const top = findCatalogFile(repo) ? repo : readdirSync(repo).map((name) => join(repo, name)).find((path) => findCatalogFile(path));
      if (!top) throw new OmpError(`${uri} holds no .claude-plugin/marketplace.json; it is not a marketplace archive`);
      const found = findCatalogFile(top)!;
      return { dir: top, catalog: readCatalogFile(found), file: found.slice(top.length + 1) };
    }
    await cloneRepo(type === "github" ? githubUrl(uri) : uri, repo);
    const found = findCatalogFile(repo);
    if (!found) throw new OmpError(`${uri} has no .claude-plugin/marketplace.json (or .omp-plugin/marketplace.json); it is not a marketplace`);
    return { dir: repo, catalog: readCatalogFile(found), file: found.slice(repo.length + 1) };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

export async function addMarketplace(source: string, cwd: string): Promise<{ record: MarketplaceRecord; catalog: Catalog }> {
  const { type, uri } = classifyMarketplaceSource(source, cwd);
  const now = new Date().toISOString();
  let record: MarketplaceRecord;
  let catalog: Catalog;
  if (type === "local") {
    if (!existsSync(uri) || !statSync(uri).isDirectory()) throw new OmpError(`${uri} is not a folder`);
    const file = findCatalogFile(uri);
    if (!file) throw new OmpError(`${uri} has no .claude-plugin/marketplace.json (or .omp-plugin/marketplace.json); it is not a marketplace`);
    catalog = readCatalogFile(file);
    record = { name: checkName(catalog.name, "marketplace"), sourceType: type, sourceUri: uri, catalogPath: file, addedAt: now, updatedAt: now };
  } else {
    const fetched = await fetchInto(type, uri);
    catalog = fetched.catalog;
    const dest = marketplaceCacheDir(checkName(catalog.name, "marketplace"));
    mkdirSync(dirname(dest), { recursive: true });
    swapInto(fetched.dir, dest);
    record = { name: catalog.name, sourceType: type, sourceUri: uri, catalogPath: join(dest, fetched.file), addedAt: now, updatedAt: now };
  }
  const state = readMarketplaces();
  const existing = state.marketplaces.find((item) => item.name === record.name);
  if (existing && existing.sourceUri !== record.sourceUri) {
    throw new OmpError(`a marketplace named ${record.name} is already added from ${existing.sourceUri}; remove it first with \`omp plugin marketplace remove ${record.name}\``);
  }
  if (existing) record.addedAt = existing.addedAt;
  state.marketplaces = [...state.marketplaces.filter((item) => item.name !== record.name), record];
  writeState(marketplacesFile(), state);
  return { record, catalog };
}

export async function updateMarketplace(name: string): Promise<{ record: MarketplaceRecord; catalog: Catalog }> {
  const state = readMarketplaces();
  const record = state.marketplaces.find((item) => item.name === name);
  if (!record) throw new OmpError(`no marketplace named ${name}; see \`omp plugin marketplace list\``);
  if (record.sourceType === "git" || record.sourceType === "github") {
    const root = marketplaceRoot(record)!;
    if (existsSync(join(root, ".git"))) await pullRepo(root);
    else {
      const fetched = await fetchInto(record.sourceType, record.sourceUri);
      swapInto(fetched.dir, root);
    }
  } else if (record.sourceType === "url" || record.sourceType === "archive") {
    const fetched = await fetchInto(record.sourceType, record.sourceUri);
    swapInto(fetched.dir, marketplaceCacheDir(name));
  }
  const catalog = loadCatalog(record);
  record.updatedAt = new Date().toISOString();
  writeState(marketplacesFile(), state);
  return { record, catalog };
}

export function removeMarketplace(name: string): MarketplaceRecord {
  const state = readMarketplaces();
  const record = state.marketplaces.find((item) => item.name === name);
  if (!record) throw new OmpError(`no marketplace named ${name}; see \`omp plugin marketplace list\``);
  state.marketplaces = state.marketplaces.filter((item) => item.name !== name);
  writeState(marketplacesFile(), state);
  if (record.sourceType !== "local") rmSync(marketplaceCacheDir(name), { recursive: true, force: true });
  return record;
}
