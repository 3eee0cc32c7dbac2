/**
 * A Dockerfile reader for the instructions modgate's Dockerfile uses, after the Dockerfile
 * reference (docs.docker.com/reference/dockerfile): comments, `\` line continuations, `--flag`
 * options, exec form (a JSON array) and shell form, `KEY=value` pairs. An instruction it does not
 * know is an error rather than something skipped, so scripts/check-dockerfile.ts never passes a
 * file it has not read. (The npm parsers, `docker-file-parser` and `dockerfile-ast`, are not
 * dependencies of this project; the subset needed here is small.)
 */

export interface Instruction {
  /** Upper case: FROM, COPY, … */
  keyword: string;
  /** `--from=build` as `{ from: 'build' }`; a flag without a value is `''`. */
  flags: Record<string, string>;
  /** What follows the flags, continuation lines joined. */
  text: string;
  /** The JSON array of an exec-form argument, or null for shell form. */
  exec: string[] | null;
  /** The line the instruction starts on, 1-based. */
  line: number;
}

export interface Stage {
  /** The FROM instruction's image reference. */
  image: string;
  /** `AS name`, or null. */
  name: string | null;
  /** FROM's own flags: `--platform=…` runs the stage on another platform than the target's. */
  fromFlags: Record<string, string>;
  instructions: Instruction[];
}

const KNOWN = new Set([
  'FROM',
  'ARG',
  'ENV',
  'WORKDIR',
  'COPY',
  'RUN',
  'USER',
  'VOLUME',
  'EXPOSE',
  'HEALTHCHECK',
  'STOPSIGNAL',
  'ENTRYPOINT',
  'CMD',
  'LABEL',
]);

export class DockerfileError extends Error {}

/** The file's stages in order; the last is the image that `docker build` produces. */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of instructions(text)) {
    if (!KNOWN.has(instruction.keyword)) {
      throw new DockerfileError(`line ${instruction.line}: ${instruction.keyword} is not read by this check`);
    }
    if (instruction.keyword === 'FROM') {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.text);
      if (!match?.[1]) throw new DockerfileError(`line ${instruction.line}: FROM ${instruction.text}`);
      stages.push({
        image: match[1],
        name: match[2] ?? null,
        fromFlags: instruction.flags,
        instructions: [],
      });
    } else if (stages.length === 0) {
      if (instruction.keyword !== 'ARG') {
        throw new DockerfileError(`line ${instruction.line}: ${instruction.keyword} before any FROM`);
      }
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  if (stages.length === 0) throw new DockerfileError('no FROM');
  return stages;
}

/** Logical instructions: comments dropped, continuation lines joined. */
function instructions(text: string): Instruction[] {
  const found: Instruction[] = [];
  let pending: { line: number; text: string } | null = null;
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/\r$/, '');
    if (/^\s*#/.test(line)) return; // a comment, also inside a continuation
    if (pending === null && line.trim() === '') return;
    const continued = /\\\s*$/.test(line);
    const body = continued ? line.replace(/\\\s*$/, '') : line;
    pending =
      pending === null ? { line: index + 1, text: body } : { ...pending, text: `${pending.text} ${body}` };
    if (!continued) {
      found.push(split(pending.text.trim(), pending.line));
      pending = null;
    }
  });
  if (pending !== null) throw new DockerfileError('the file ends inside a line continuation');
  return found;
}

function split(text: string, line: number): Instruction {
  const keyword = text.split(/\s+/, 1)[0] ?? '';
  let remainder = text.slice(keyword.length).trim();
  const flags: Record<string, string> = {};
  // HEALTHCHECK's options come before CMD; every other instruction's flags come first too.
  for (let match = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(remainder); match;) {
    flags[match[1]!] = match[2] ?? '';
    remainder = remainder.slice(match[0].length);
    match = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(remainder);
  }
  return { keyword: keyword.toUpperCase(), flags, text: remainder, exec: execForm(remainder), line };
}

/** A JSON array of strings, or null: Docker reads anything else as shell form. */
export function execForm(text: string): string[] | null {
  if (!text.startsWith('[')) return null;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : null;
  } catch {
    return null;
  }
}

/** `ENV A=1 B="two words"` (or the old `ENV A 1`) as pairs. */
export function keyValues(text: string): Record<string, string> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) {
    const [key = '', ...value] = text.split(/\s+/);
    return { [key]: value.join(' ') };
  }
  const pairs: Record<string, string> = {};
  for (const match of text.matchAll(/([A-Za-z_][A-Za-z0-9_.-]*)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    const raw = match[2]!;
    pairs[match[1]!] = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw;
  }
  return pairs;
}

/** HEALTHCHECK's command: `CMD [...]` after its options, or NONE. */
export function healthcheckCommand(instruction: Instruction): { exec: string[] | null; none: boolean } {
  if (/^NONE$/i.test(instruction.text)) return { exec: null, none: true };
  const match = /^CMD\s+(.*)$/i.exec(instruction.text);
  return { exec: match ? execForm(match[1]!.trim()) : null, none: false };
}
