import { InvalidArgumentError } from "commander";
import { InvalidOptionValue } from "./option-values.ts";

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
