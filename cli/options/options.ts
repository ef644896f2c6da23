import { type Command, InvalidArgumentError } from "commander";
import type { OptionSpec } from "./option-parser.ts";
import { InvalidOptionValue, collect } from "./option-values.ts";

/** What a command's action is wrapped in: it runs the command and records its exit status. */
export type Run = <A extends unknown[]>(action: (...args: A) => Promise<number>) => (...args: A) => Promise<void>;

/** Registers options that are also parsed without commander (option-parser.ts), from their one table. */
export function addOptions(command: Command, options: readonly OptionSpec[]): Command {
  for (const option of options) {
    if (option.repeatable) command.option(option.flags, option.description, collect);
    else if (option.parse) command.option(option.flags, option.description, forCommander(option.parse));
    else command.option(option.flags, option.description);
  }
  return command;
}

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
