import type { ListedModel } from "../model-lists.ts";
import type { RequestControls } from "../request-controls.ts";
import type { StreamFunction } from "../stream.ts";

/** A JSON GET with the user's key headers, bounded in time (model-lists.ts makes it). */
export type JsonGet = (url: string, headers: Record<string, string>) => Promise<Record<string, unknown>>;

/** A request control an API has no field for, by the name the caller used for it. */
export type UnservedControl = "stop" | "responseFormat";

/**
 * Everything omp knows about one wire API, in the API's own folder (core/ai/apis/<id>/): how a
 * reply is requested and its stream read (the adapter), how its model list is read, which request
 * controls it takes, and its thinking rules. The table in ./index.ts holds one per API, so adding
 * an API is one folder plus its line there, and the compiler names every fact it still lacks.
 */
export interface WireApi {
  stream: StreamFunction;
  /** Asks the API's model-list endpoint what the key may use; throws when the API has none. */
  listModels(baseUrl: string, apiKey: string | undefined, get: JsonGet): Promise<ListedModel[]>;
  /** The request controls it cannot take. */
  unservedControls(controls: RequestControls): UnservedControl[];
  /**
   * Its signed thinking is valid only behind the exact prefix it was made after (Anthropic's rule,
   * and OpenRouter's route to it): a changed prefix means sending it back unsigned.
   */
  prefixBoundThinking: boolean;
  /**
   * The client format (of the gateway's three) that is this API itself: thinking signatures,
   * reasoning items and call ids pass through to such a client unchanged.
   */
  sameAsClient?: "anthropic" | "openai-responses";
  /** Counts a request's tokens exactly (Anthropic's count_tokens); others are estimated. */
  countsTokens: boolean;
}

/** Throws for APIs whose models are the catalog's (or are listed by their cloud transport). */
export function noModelList(why: string): WireApi["listModels"] {
  return async () => {
    throw new Error(why);
  };
}

export const servesAllControls: WireApi["unservedControls"] = () => [];
