import { type Mapping, isMapping } from "./config-file.ts";

/**
 * `over` laid on `base`: mappings merge key by key, everything else (scalars and lists) in `over`
 * replaces what `base` has. Lists replace rather than append so a project can shorten a global list.
 */
export function deepMerge(base: Mapping, over: Mapping): Mapping {
  const result: Mapping = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const below = result[key];
    result[key] = isMapping(below) && isMapping(value) ? deepMerge(below, value) : value;
  }
  return result;
}

/** Whether `mapping` sets the dotted `path` itself (not just a parent of it). */
export function hasPath(mapping: Mapping, path: readonly string[]): boolean {
  let current: unknown = mapping;
  for (const key of path) {
    if (!isMapping(current) || !Object.hasOwn(current, key)) return false;
    current = current[key];
  }
  return true;
}

/** The value at `path`, or undefined. */
export function getPath(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isMapping(current)) return undefined;
    current = current[key];
  }
  return current;
}

/**
 * Makes `target` equal to `source` while keeping each of its mappings the same object, so code
 * holding a nested mapping (the compaction settings, the web settings) sees the new values.
 */
export function assignInPlace(target: Mapping, source: Mapping): void {
  for (const key of Object.keys(target)) if (!Object.hasOwn(source, key)) delete target[key];
  for (const [key, value] of Object.entries(source)) {
    const below = target[key];
    if (isMapping(below) && isMapping(value)) assignInPlace(below, value);
    else target[key] = value;
  }
}
