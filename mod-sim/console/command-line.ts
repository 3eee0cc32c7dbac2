/**
 * The text form of a command, as typed in chat or at the panel and as the history shows it:
 * `#Verb [subject] arg…`. A player subject is its platform id; a position is `@x,y,z`. A word
 * holding whitespace, a quote or a backslash is written in double quotes with `\"` and `\\`
 * escapes, so `format` and `parse` round-trip.
 */
import type { Position } from '../world/index.ts';
import type { ResolvedSubject } from './types.ts';

const PLATFORM_WORD = /^[0-9]{17}$/;
const NUMBER = '[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)';
const POSITION_WORD = new RegExp(`^@(${NUMBER}),(${NUMBER}),(${NUMBER})$`);
const NEEDS_QUOTES = /[\s"\\]|^$/;

export interface CommandLine {
  verb: string;
  /** The subject word, when the line has one. */
  subject: { platform_id: string } | { position: Position } | null;
  args: string[];
}

export class CommandLineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandLineError';
  }
}

export function quoteWord(word: string): string {
  if (!NEEDS_QUOTES.test(word)) return word;
  return `"${word.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

export function positionWord(position: Position): string {
  return `@${position.x},${position.y},${position.z}`;
}

/** The history text of a command. */
export function formatCommand(
  verb: string,
  subject: ResolvedSubject | null,
  args: readonly string[],
): string {
  const words = [`#${verb}`];
  if (subject?.kind === 'player') words.push(subject.platformId);
  if (subject?.kind === 'position') words.push(positionWord(subject.position));
  for (const arg of args) words.push(quoteWord(arg));
  return words.join(' ');
}

/** Splits a line into words: runs of non-space, or double-quoted text with `\` escapes. */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let index = 0;
  while (index < line.length) {
    const char = line[index] as string;
    if (/\s/.test(char)) {
      index++;
      continue;
    }
    if (char !== '"') {
      const end = line.slice(index).search(/\s/);
      const stop = end < 0 ? line.length : index + end;
      words.push(line.slice(index, stop));
      index = stop;
      continue;
    }
    let word = '';
    index++;
    for (;;) {
      if (index >= line.length) throw new CommandLineError('Unterminated quote');
      const next = line[index] as string;
      if (next === '"') break;
      if (next === '\\' && index + 1 < line.length) index++;
      word += line[index];
      index++;
    }
    words.push(word);
    index++;
  }
  return words;
}

/**
 * Parses `#Verb [subject] arg…`. The second word is read as the subject when `takesSubject` says
 * the verb takes one and the word is a platform id or `@x,y,z`.
 */
export function parseCommand(line: string, takesSubject: (verb: string) => boolean): CommandLine {
  const words = splitWords(line.trim());
  const first = words.shift();
  if (first === undefined || first === '#') throw new CommandLineError('Empty command');
  const verb = first.startsWith('#') ? first.slice(1) : first;
  let subject: CommandLine['subject'] = null;
  const word = words[0];
  if (word !== undefined && takesSubject(verb)) {
    const position = POSITION_WORD.exec(word);
    if (PLATFORM_WORD.test(word)) subject = { platform_id: word };
    if (position !== null) {
      subject = { position: { x: Number(position[1]), y: Number(position[2]), z: Number(position[3]) } };
    }
    if (subject !== null) words.shift();
  }
  return { verb, subject, args: words };
}
