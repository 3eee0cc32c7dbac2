/**
 * The Dockerfile checks catch what they are there for: each test breaks the repository's
 * Dockerfile in one way and expects the matching check to fail, so the all-`ok` report of
 * test/scripts/check-dockerfile.test.ts means something.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseDockerIgnore } from '../../../scripts/dockerfile/dockerignore.ts';
import { imageModel } from '../../../scripts/dockerfile/image-model.ts';
import { DockerfileError, parseDockerfile } from '../../../scripts/dockerfile/parse.ts';
import {
  checkCopies,
  checkHealthcheck,
  checkStages,
  checkUserAndCommands,
  checkVolume,
  type Check,
} from '../../../scripts/dockerfile/static-checks.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOCKERFILE = readFileSync(new URL('Dockerfile', `file://${ROOT}`), 'utf8');
const DOCKERIGNORE = readFileSync(new URL('.dockerignore', `file://${ROOT}`), 'utf8');

function checksOf(dockerfile: string, dockerignore = DOCKERIGNORE): Check[] {
  const stages = parseDockerfile(dockerfile);
  const model = imageModel(stages, ROOT, parseDockerIgnore(dockerignore));
  return [
    ...checkStages(stages),
    ...checkUserAndCommands(model),
    ...checkHealthcheck(model),
    ...checkVolume(model),
    ...checkCopies(model),
  ];
}

const failures = (checks: Check[]) =>
  checks.filter((check) => check.level === 'fail').map((check) => check.text);

/** The 1-based line of the Dockerfile that holds `text`. */
function lineOf(text: string): number {
  return DOCKERFILE.split('\n').findIndex((line) => line.includes(text)) + 1;
}

function edited(from: string, to: string): string {
  expect(DOCKERFILE).toContain(from);
  return DOCKERFILE.replace(from, to);
}

describe('the Dockerfile checks', () => {
  it('pass on the repository Dockerfile', () => {
    expect(failures(checksOf(DOCKERFILE))).toEqual([]);
  });

  it('fail on a base image without a tag', () => {
    expect(failures(checksOf(edited('FROM node:24-bookworm-slim AS build', 'FROM node AS build')))).toEqual([
      'FROM node: not pinned (give a tag or a digest)',
    ]);
  });

  it('fail on a runtime base whose libraries they do not know', () => {
    const checks = checksOf(
      edited('FROM gcr.io/distroless/cc-debian12:nonroot', 'FROM gcr.io/distroless/static-debian12:nonroot'),
    );
    expect(failures(checks)).toEqual([
      'runtime base gcr.io/distroless/static-debian12: unknown here; add the libraries it provides to RUNTIME_BASES',
    ]);
  });

  it('fail when the image runs as root', () => {
    const checks = checksOf(edited('USER 65532:65532', 'USER root'));
    expect(failures(checks)).toContain('USER root: give a non-zero numeric uid (or nonroot)');
  });

  it('fail on a shell-form health check and command', () => {
    const health = edited(
      'CMD ["/usr/local/bin/modgate", "healthcheck"]',
      'CMD /usr/local/bin/modgate healthcheck',
    );
    expect(failures(checksOf(health))).toEqual([
      'HEALTHCHECK CMD /usr/local/bin/modgate healthcheck: not exec form; distroless has no shell',
    ]);
    const cmd = edited('CMD ["serve"]', 'CMD serve');
    expect(failures(checksOf(cmd))[0]).toBe(
      'CMD serve: shell form; distroless has no shell, use a JSON array',
    );
  });

  it('fail on a health check timeout that leaves no room for the start-up', () => {
    expect(failures(checksOf(edited('--timeout=10s', '--timeout=3s')))).toEqual([
      "HEALTHCHECK --timeout=3s: give at least 8s (start-up, then healthcheck's 3 s limit)",
    ]);
  });

  it('fail when the volume does not hold the data dir, or a new volume would belong to root', () => {
    const moved = edited('VOLUME ["/var/lib/modgate"]', 'VOLUME ["/data"]');
    expect(failures(checksOf(moved))).toEqual([
      'VOLUME ["/data"]: does not hold the data dir /var/lib/modgate',
    ]);
    const root = edited('--chown=65532:65532 ', '');
    expect(failures(checksOf(root))).toEqual([
      'COPY to /var/lib/modgate: no --chown (root) is not the USER 65532:65532',
    ]);
  });

  it('fail on a COPY source that .dockerignore leaves out or nothing makes', () => {
    expect(failures(checksOf(DOCKERFILE, `${DOCKERIGNORE}\ndocker\n`))).toEqual([
      `COPY docker/modgate.toml (line ${lineOf('COPY docker/modgate.toml')}): .dockerignore leaves docker/modgate.toml out`,
    ]);
    const typo = edited(
      '/src/dist/modgate /usr/local/bin/modgate',
      '/src/dist/modgat /usr/local/bin/modgate',
    );
    expect(failures(checksOf(typo))).toContain(
      `COPY /src/dist/modgat (line ${lineOf('/src/dist/modgate')}): nothing in stage build makes /src/dist/modgat`,
    );
  });

  it('refuse an instruction they do not read, rather than skip it', () => {
    expect(() => parseDockerfile(`${DOCKERFILE}\nONBUILD RUN true\n`)).toThrow(DockerfileError);
  });
});

describe('.dockerignore matching', () => {
  const ignore = parseDockerIgnore('# comment\nnode_modules\n**/*.log\ndocs/*.md\n!docs/keep.md\n/dist/\n');

  it('excludes a folder with everything in it, and nested matches of **', () => {
    expect(ignore.excludes('node_modules/tsx/dist/cli.mjs')).toBe(true);
    expect(ignore.excludes('a/b/c.log')).toBe(true);
    expect(ignore.excludes('dist/modgate')).toBe(true);
    expect(ignore.excludes('cli/main.ts')).toBe(false);
  });

  it('lets the last matching pattern decide, so ! makes an exception', () => {
    expect(ignore.excludes('docs/operations.md')).toBe(true);
    expect(ignore.excludes('docs/keep.md')).toBe(false);
  });
});
