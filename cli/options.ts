import { InvalidArgumentError } from "commander";
import { InvalidOptionValue, nonNegativeInt as parseNonNegativeInt, sortOrder as parseSortOrder } from "./option-values.ts";

/** A value parser for commander: its complaint becomes the usage error commander reports. */
export function forCommander<A extends unknown[], T>(parse: (value: string, ...rest: A) => T): (value: string, ...rest: A) => T {
  return (value, ...rest) => {
    try {
      return parse(value, ...rest);
    } catch (error) {
      if (error instanceof InvalidOptionValue) throw new InvalidArgumentError(error.message);
      throw error;
    }
  };
}

/** Commander parser for counts such as `-A 3`. */
export const nonNegativeInt = forCommander(parseNonNegativeInt);

/** Commander parser for `--sort path|none`. */
export const sortOrder = forCommander(parseSortOrder);
