export type { CloudAccounts } from "./cloud.ts";
export { COUNTED_TOKENS, type RecordedRequest, type Standin, type StandinOptions, startStandin } from "./core.ts";
export type { ListedModel, ListingStyle } from "./listings.ts";
export type { Fault, Reply, ScriptedToolCall, ScriptedUsage, Turn } from "./script.ts";
