import type { AgentFlags } from "./agent.ts";
import { AGENT_OPTIONS, type AgentOption } from "./agent-options.ts";
import { InvalidOptionValue, collect } from "./option-values.ts";

/**
 * Words that commander takes as a command when they come first. (`help` is not one, since the
 * program has an action of its own, but it is left to commander all the same.)
 */
export const SUBCOMMANDS: ReadonlySet<string> = new Set(["grep", "find", "doctor", "update", "config", "auth", "auth-broker", "auth-gateway", "trust", "models", "help", "extensions", "mcp"]);

export interface AgentArgv {
  messages: string[];
  flags: AgentFlags;
}

interface Spec {
  option: AgentOption;
  short?: string;
  long: string;
  /** The key in AgentFlags: the long name in camelCase, without `no-`. */
  key: string;
  value: "none" | "required" | "optional";
  negate: boolean;
}

const FLAGS = /^(?:-(?<short>[a-zA-Z]), )?(?<long>--[a-z][a-z-]*)(?: (?<value><[a-z]+>|\[[a-z]+\]))?$/;

function specOf(option: AgentOption): Spec {
  const groups = FLAGS.exec(option.flags)?.groups;
  if (!groups) throw new Error(`agent option flags ${JSON.stringify(option.flags)}: expected "-x, --name", "--name <value>" or "--name [value]"`);
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
 * The agent command's arguments as commander would hand them to runAgent, parsed without loading
 * commander (5–7 ms of start-up). Anything unusual gives undefined, for commander to handle with its
 * exact help, errors and subcommands: help or version flags, a subcommand, an unknown option, a
 * missing or invalid value, `--` inside a group of short options, a negative number where an
 * optional value could go.
 */
export function parseAgentArgv(argv: readonly string[]): AgentArgv | undefined {
  const specs = AGENT_OPTIONS.map(specOf);
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

  const messages: string[] = [];
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
      messages.push(...argv.slice(i));
      break;
    }
    if (!looksLikeOption(arg)) {
      messages.push(arg);
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
  if (messages.length > 0 && SUBCOMMANDS.has(messages[0]!)) return undefined;
  return { messages, flags: flags as AgentFlags };
}
