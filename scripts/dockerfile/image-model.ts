/**
 * What the Dockerfile's final stage puts into the image, read from the parsed stages: its ENV,
 * USER, VOLUMEs, ports, command, health check, and where each COPY's source comes from. A source
 * is found in the build context (the checkout, less what .dockerignore leaves out) or in a build
 * stage: copied there from the context, made by `npm run build` (dist/modgate and its checksum),
 * or made by a `mkdir` in a RUN line. Anything else is reported as not found.
 */
import { existsSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { DockerIgnore } from './dockerignore.ts';
import { execForm, healthcheckCommand, keyValues, type Instruction, type Stage } from './parse.ts';

/** Where a file of the image comes from, on this machine. */
export type Source =
  | { kind: 'context'; path: string }
  | { kind: 'npm-run-build'; file: 'modgate' | 'modgate.sha256' }
  | { kind: 'mkdir' }
  | { kind: 'missing'; why: string };

export interface CopyItem {
  line: number;
  /** The source as written and where it resolves to. */
  from: string;
  source: Source;
  /** The absolute path in the image. */
  dest: string;
  chown: string | null;
}

export interface ImageModel {
  env: Record<string, string>;
  user: string | null;
  volumes: string[];
  /** The line of the last VOLUME, to check that nothing is copied into a volume after it. */
  volumeLine: number | null;
  ports: number[];
  entrypoint: Instruction | null;
  cmd: Instruction | null;
  healthcheck: { instruction: Instruction; exec: string[] | null; none: boolean } | null;
  stopSignal: string | null;
  copies: CopyItem[];
}

export function imageModel(stages: Stage[], context: string, ignore: DockerIgnore): ImageModel {
  const final = stages.at(-1)!;
  const model: ImageModel = {
    env: {},
    user: null,
    volumes: [],
    volumeLine: null,
    ports: [],
    entrypoint: null,
    cmd: null,
    healthcheck: null,
    stopSignal: null,
    copies: [],
  };
  let workdir = '/';
  for (const instruction of final.instructions) {
    const { keyword, text } = instruction;
    if (keyword === 'ENV') Object.assign(model.env, keyValues(text));
    else if (keyword === 'USER') model.user = text;
    else if (keyword === 'WORKDIR') workdir = posix.resolve(workdir, text);
    else if (keyword === 'VOLUME') {
      model.volumes.push(...(instruction.exec ?? text.split(/\s+/)));
      model.volumeLine = instruction.line;
    } else if (keyword === 'EXPOSE') model.ports.push(...text.split(/\s+/).map((port) => parseInt(port, 10)));
    else if (keyword === 'ENTRYPOINT') model.entrypoint = instruction;
    else if (keyword === 'CMD') model.cmd = instruction;
    else if (keyword === 'HEALTHCHECK')
      model.healthcheck = { instruction, ...healthcheckCommand(instruction) };
    else if (keyword === 'STOPSIGNAL') model.stopSignal = text;
    else if (keyword === 'COPY')
      model.copies.push(...copyItems(instruction, workdir, stages, context, ignore));
  }
  return model;
}

/** `COPY [--from=stage] src... dest`, each source resolved. */
function copyItems(
  instruction: Instruction,
  workdir: string,
  stages: Stage[],
  context: string,
  ignore: DockerIgnore,
): CopyItem[] {
  const words = instruction.exec ?? instruction.text.split(/\s+/);
  const dest = posix.resolve(workdir, words.at(-1)!);
  const from = instruction.flags['from'];
  return words.slice(0, -1).map((source) => ({
    line: instruction.line,
    from: source,
    source:
      from === undefined
        ? fromContext(source, context, ignore)
        : fromStage(
            source,
            stages.find((stage) => stage.name === from),
            context,
            ignore,
          ),
    // `COPY a b/` or several sources: into the folder.
    dest: words.length > 2 || dest.endsWith('/') ? posix.join(dest, posix.basename(source)) : dest,
    chown: instruction.flags['chown'] ?? null,
  }));
}

function fromContext(source: string, context: string, ignore: DockerIgnore): Source {
  const relative = posix.normalize(source).replace(/^\/+/, '');
  if (ignore.excludes(relative)) return { kind: 'missing', why: `.dockerignore leaves ${relative} out` };
  if (!existsSync(join(context, relative)))
    return { kind: 'missing', why: `${relative} is not in the checkout` };
  return { kind: 'context', path: join(context, relative) };
}

/** A file of a build stage: copied in from the context, or made by one of its RUN lines. */
function fromStage(source: string, stage: Stage | undefined, context: string, ignore: DockerIgnore): Source {
  if (stage === undefined) return { kind: 'missing', why: 'no stage of that name' };
  let workdir = '/';
  let found: Source = {
    kind: 'missing',
    why: `nothing in stage ${stage.name ?? stage.image} makes ${source}`,
  };
  for (const instruction of stage.instructions) {
    if (instruction.keyword === 'WORKDIR') workdir = posix.resolve(workdir, instruction.text);
    const under = (path: string) => posix.relative(workdir, posix.resolve(workdir, path));
    if (instruction.keyword === 'COPY' && instruction.flags['from'] === undefined) {
      const words = instruction.exec ?? instruction.text.split(/\s+/);
      // `COPY . .` (the whole context into the workdir) or a named file into it.
      const intoWorkdir = posix.resolve(workdir, words.at(-1)!) === workdir;
      const rel = under(source);
      if (intoWorkdir && !rel.startsWith('..') && (words.includes('.') || words.slice(0, -1).includes(rel))) {
        const inContext = fromContext(rel, context, ignore);
        if (inContext.kind === 'context') found = inContext;
      }
    }
    if (instruction.keyword === 'RUN') found = madeByRun(instruction.text, under(source)) ?? found;
  }
  return found;
}

/** What a RUN line of the build stage makes: `npm run build` (dist/), `mkdir` folders. */
function madeByRun(run: string, path: string): Source | null {
  for (const command of run.split(/&&|;/).map((part) => part.trim())) {
    if (/^npm run build\b/.test(command) && (path === 'dist/modgate' || path === 'dist/modgate.sha256')) {
      return { kind: 'npm-run-build', file: path === 'dist/modgate' ? 'modgate' : 'modgate.sha256' };
    }
    const mkdir = /^mkdir\s+(.*)$/.exec(command);
    if (mkdir) {
      const operands = mkdir[1]!.split(/\s+/).filter((word, index, all) => {
        return !word.startsWith('-') && !(index > 0 && all[index - 1] === '-m');
      });
      if (operands.includes(path)) return { kind: 'mkdir' };
    }
  }
  return null;
}

/** The ENTRYPOINT and CMD as the container runs them (both exec form), or null. */
export function commandLine(model: ImageModel): string[] | null {
  const entry = model.entrypoint ? execForm(model.entrypoint.text) : [];
  const cmd = model.cmd ? execForm(model.cmd.text) : [];
  return entry === null || cmd === null ? null : [...entry, ...cmd];
}
