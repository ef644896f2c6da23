import { InvalidOptionValue, collect } from "./option-values.ts";

/**
 * One option of a command. `flags` is written as commander takes it, and says how the option is
 * given: alone ("-p, --print"), with a value ("--mode <mode>"), with a value or alone
 * ("-r, --resume [session]"), or negated ("--no-session": the key is true unless given, or unset when
 * the positive option comes first, as "--tools <names>" does before "--no-tools").
 */
export interface OptionSpec {
  flags: string;
  description: string;
  /** Reads the value, throwing InvalidOptionValue when it cannot; without it, the value is the text as given. */
  parse?: (value: string) => number | string;
  /** Each use adds its value to a list (`--config a --config b`). */
  repeatable?: true;
}

export interface ParsedArgv {
  /** The arguments that are no options, in order (everything after `--` included). */
  operands: string[];
  /** Keyed as commander keys them: the long name in camelCase, without `no-`. */
  flags: Record<string, unknown>;
}

interface Spec {
  option: OptionSpec;
  short?: string;
  long: string;
  key: string;
  value: "none" | "required" | "optional";
  negate: boolean;
}

const FLAGS = /^(?:-(?<short>[a-zA-Z]), )?(?<long>--[a-z][a-z-]*)(?: (?<value><[a-z]+>|\[[a-z]+\]))?$/;

function specOf(option: OptionSpec): Spec {
  const groups = FLAGS.exec(option.flags)?.groups;
  if (!groups) throw new Error(`option flags ${JSON.stringify(option.flags)}: expected "-x, --name", "--name <value>" or "--name [value]"`);
  const negate = groups.long!.startsWith("--no-");
  const name = groups.long!.slice(negate ? 5 : 2);
  return {
    option,
    short: groups.short && `-${groups.short}`,
    long: groups.long!,
    key: name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()),
    value: groups.value === undefined ? "none" : groups.value.startsWith("<") ? "required" : "optional",
    negate,
  };
}

const looksLikeOption = (arg: string) => arg.length > 1 && arg.startsWith("-");

/**
 * A command's arguments as commander would hand them to its action, parsed without loading
 * commander (its module and command tree cost 10–15 ms of start-up). Anything unusual gives
 * undefined, for commander to handle with its exact help and errors: help or version flags, an
 * unknown option, a missing or invalid value, `--` inside a group of short options, a negative
 * number where an optional value could go.
 */
export function parseOptions(options: readonly OptionSpec[], argv: readonly string[]): ParsedArgv | undefined {
  const specs = options.map(specOf);
  const byFlag = new Map<string, Spec>();
  const flags: Record<string, unknown> = {};
  for (const [index, spec] of specs.entries()) {
    byFlag.set(spec.long, spec);
    if (spec.short) byFlag.set(spec.short, spec);
    // Commander defaults a negated option to true, unless its positive form was registered first.
    if (spec.negate && !specs.slice(0, index).some((earlier) => earlier.key === spec.key)) flags[spec.key] = true;
  }

  /** Sets the option as commander does; false when the value is invalid. */
  const assign = (spec: Spec, value: string | undefined): boolean => {
    if (value === undefined) {
      flags[spec.key] = !spec.negate;
      return true;
    }
    if (spec.option.repeatable) {
      flags[spec.key] = collect(value, flags[spec.key] as string[] | undefined);
      return true;
    }
    if (!spec.option.parse) {
      flags[spec.key] = value;
      return true;
    }
    try {
      flags[spec.key] = spec.option.parse(value);
      return true;
    } catch (error) {
      if (error instanceof InvalidOptionValue) return false;
      throw error;
    }
  };

  const operands: string[] = [];
  let i = 0;
  /** The option written whole (`-m`, `--model`): its value, if it takes one, is the next argument. */
  const takeWhole = (spec: Spec): boolean => {
    const next = argv[i];
    if (spec.value === "required") return next !== undefined && assign(spec, argv[i++]);
    if (spec.value === "optional" && next !== undefined) {
      if (!looksLikeOption(next)) return assign(spec, argv[i++]);
      // Commander takes a negative number as the value (-r -5): rare enough to leave to it.
      if (/^-[\d.]/.test(next)) return false;
    }
    return assign(spec, undefined);
  };

  while (i < argv.length) {
    const arg = argv[i++]!;
    if (arg === "--") {
      operands.push(...argv.slice(i));
      break;
    }
    if (!looksLikeOption(arg)) {
      operands.push(arg);
      continue;
    }
    const whole = byFlag.get(arg);
    if (whole) {
      if (!takeWhole(whole)) return undefined;
      continue;
    }
    if (arg.startsWith("--")) {
      // --name=value, for options that take a value.
      const equals = arg.indexOf("=");
      const spec = equals > 2 ? byFlag.get(arg.slice(0, equals)) : undefined;
      if (!spec || spec.value === "none" || !assign(spec, arg.slice(equals + 1))) return undefined;
      continue;
    }
    // A group of short options (-pc), the last of which may take the rest (-mfoo) or the next argument (-pm foo).
    for (let at = 1; at < arg.length; at++) {
      const spec = byFlag.get(`-${arg[at]}`);
      if (!spec) return undefined;
      if (spec.value === "none") {
        assign(spec, undefined);
        continue;
      }
      if (!(at + 1 < arg.length ? assign(spec, arg.slice(at + 1)) : takeWhole(spec))) return undefined;
      break;
    }
  }
  return { operands, flags };
}
