/**
 * Positional arguments checked against a catalogue entry, as the game's console does: the count
 * (required ones present, no extras unless the last argument repeats), each word's data type, and
 * the options of a fixed-choice argument. A refusal is the game's own sentence, never an op error.
 */
import type { CommandArg, CommandCatalogEntry } from '../world/index.ts';

/** The game keeps integers in 32 bits. */
export const INT_MIN = -0x8000_0000;
export const INT_MAX = 0x7fff_ffff;

const INTEGER = /^[+-]?\d{1,10}$/;
const DECIMAL = /^[+-]?(?:\d{1,12}(?:\.\d{0,6})?|\.\d{1,6})$/;
const TRUE_WORDS = new Set(['true', 'on', 'yes', '1']);
const FALSE_WORDS = new Set(['false', 'off', 'no', '0']);

export type ArgValue = string | number | boolean;

/** The checked arguments by name; a repeating argument is its words joined by single spaces. */
export class ParsedArgs {
  readonly #values: ReadonlyMap<string, ArgValue>;

  constructor(values: ReadonlyMap<string, ArgValue>) {
    this.#values = values;
  }

  has(name: string): boolean {
    return this.#values.has(name);
  }

  text(name: string): string {
    return String(this.#get(name));
  }

  number(name: string): number {
    const value = this.#get(name);
    if (typeof value !== 'number') throw new TypeError(`argument ${name} is not a number`);
    return value;
  }

  /** The number, or `fallback` when the optional argument was left out. */
  numberOr(name: string, fallback: number): number {
    return this.has(name) ? this.number(name) : fallback;
  }

  #get(name: string): ArgValue {
    const value = this.#values.get(name);
    if (value === undefined) throw new RangeError(`argument ${name} was not given`);
    return value;
  }
}

export type ArgCheck = { ok: true; args: ParsedArgs } | { ok: false; message: string };

/** `#Verb <player> <a> [b] <words...>`: how the game shows a verb's usage. */
export function usage(entry: CommandCatalogEntry): string {
  const parts = [`#${entry.verb}`];
  if (entry.target_mode === 'player') parts.push('<player>');
  if (entry.target_mode === 'position') parts.push('<position>');
  if (entry.target_mode === 'player_or_position') parts.push('<player|position>');
  for (const arg of entry.args) {
    const name = arg.repeating ? `${arg.name}...` : arg.name;
    parts.push(arg.required ? `<${name}>` : `[${name}]`);
  }
  return parts.join(' ');
}

/** Checks `words` against `entry.args`. */
export function checkArgs(entry: CommandCatalogEntry, words: readonly string[]): ArgCheck {
  const values = new Map<string, ArgValue>();
  const specs = entry.args;
  const last = specs.at(-1);
  if (words.length > specs.length && last?.repeating !== true) {
    const most = specs.length === 0 ? 'no arguments' : `at most ${specs.length} argument(s)`;
    return fail(`Too many arguments: ${entry.verb} takes ${most}. Usage: ${usage(entry)}`);
  }
  for (const [index, spec] of specs.entries()) {
    const taken = spec.repeating ? words.slice(index) : words.slice(index, index + 1);
    if (taken.length === 0) {
      if (spec.required) return fail(`Missing argument <${spec.name}>. Usage: ${usage(entry)}`);
      continue;
    }
    const checked: ArgValue[] = [];
    for (const word of taken) {
      const value = checkWord(spec, word);
      if (typeof value === 'object') return fail(value.message);
      checked.push(value);
    }
    values.set(spec.name, spec.repeating ? checked.join(' ') : (checked[0] as ArgValue));
  }
  return { ok: true, args: new ParsedArgs(values) };
}

function fail(message: string): ArgCheck {
  return { ok: false, message };
}

/** One word as `spec` reads it, or the game's complaint. */
function checkWord(spec: CommandArg, word: string): ArgValue | { message: string } {
  const invalid = (expected: string) => ({
    message: `Invalid value '${word}' for <${spec.name}>: expected ${expected}.`,
  });
  if (spec.values.length > 0) {
    const option = spec.values.find((value) => value.toLowerCase() === word.toLowerCase());
    return option ?? invalid(`one of ${spec.values.join(', ')}`);
  }
  switch (spec.data_type) {
    case 'int': {
      const value = Number(word);
      if (!INTEGER.test(word) || value < INT_MIN || value > INT_MAX) return invalid('a whole number');
      return value;
    }
    case 'float':
      return DECIMAL.test(word) ? Number(word) : invalid('a number');
    case 'bool': {
      const lower = word.toLowerCase();
      if (TRUE_WORDS.has(lower)) return true;
      return FALSE_WORDS.has(lower) ? false : invalid('true or false');
    }
    case 'string':
      return word.length > 0 ? word : invalid('some text');
  }
}
