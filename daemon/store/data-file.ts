/**
 * The file boundary of the data dir. Each file is declared once with its zod schema (which turns
 * the snake_case JSON into the camelCase domain object) and its serializer (the way back); reading
 * and writing go through the two functions below, so every file gets the same error messages and
 * the same atomic write.
 */
import { join } from 'node:path';
import * as z from 'zod';
import { writeJsonAtomic } from './atomic-file.ts';
import { readDataText } from './data-dir-fs.ts';
import { errnoCode, StoreError } from './errors.ts';

/** A raw 32-byte key stored as standard base64; protocol/'s, which mod-credentials.json shares. */
export { keyField } from '../../protocol/mod-credentials.ts';

export interface DataFile<T> {
  /** File name inside the data dir, e.g. `keys.json`. */
  readonly name: string;
  /** Parses the file's JSON into the domain object. */
  readonly schema: z.ZodType<T>;
  /** Turns the domain object back into the file's JSON. */
  readonly serialize: (value: T) => unknown;
  /**
   * For a file that is created on first write (not by `init`): the value a missing file reads
   * as. Without it a missing file is an error naming `modgate init`.
   */
  readonly whenMissing?: T;
}

/**
 * The data dir as a file's own module sees it (DataDir is one): read the file, change it under
 * the data dir lock. Such a module takes this rather than DataDir, which imports every file's
 * module to build the snapshot.
 */
export interface DataFileAccess {
  read<T>(file: DataFile<T>): Promise<T>;
  update<T>(file: DataFile<T>, change: (current: T) => T): Promise<{ readonly after: T }>;
}

export function defineDataFile<T>(file: DataFile<T>): DataFile<T> {
  return Object.freeze(file);
}

export async function readDataFile<T>(dir: string, file: DataFile<T>): Promise<T> {
  const path = join(dir, file.name);
  let text: string;
  try {
    text = await readDataText(path);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') {
      if (file.whenMissing !== undefined) return file.whenMissing;
      throw new StoreError(
        'missing_file',
        `${path} is missing; run \`modgate init --data-dir ${dir}\` to recreate it`,
      );
    }
    if (error instanceof StoreError) throw error;
    throw new StoreError('invalid_file', `cannot read ${path}: ${describe(error)}`, { cause: error });
  }
  return parseDataFile(path, text, file);
}

/** Parses a file's text; `path` only names the file in the error. */
export function parseDataFile<T>(path: string, text: string, file: DataFile<T>): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new StoreError('invalid_file', `${path} is not valid JSON (${describe(error)}); ${RESTORE_HINT}`);
  }
  // jitless: zod would otherwise compile a fast path (new Function) for each object schema on its
  // first parse; a data file is parsed once per load, so compiling costs more than it saves, and
  // it was about 3% of serve's start-up (docs/performance-history.md,
  // "What changed, and what each bought"). The result is the same.
  const result = file.schema.safeParse(json, { jitless: true });
  if (!result.success) {
    throw new StoreError(
      'invalid_file',
      `${path} is invalid: ${formatIssues(result.error)}; ${RESTORE_HINT}`,
    );
  }
  return result.data;
}

/**
 * Writes the domain object atomically. The serialized JSON is parsed back with the file's own
 * schema first, so a bug can never leave a file behind that the daemon would refuse to load.
 */
export async function writeDataFile<T>(dir: string, file: DataFile<T>, value: T): Promise<void> {
  const json = file.serialize(value);
  const check = file.schema.safeParse(json, { jitless: true });
  if (!check.success) {
    throw new Error(`refusing to write an invalid ${file.name}: ${formatIssues(check.error)}`);
  }
  await writeJsonAtomic(join(dir, file.name), json);
}

const RESTORE_HINT = 'fix it by hand or restore it from a backup';

/** `keys[0].scopes[1]: Invalid option …`, at most three issues, on one line. */
export function formatIssues(error: z.ZodError): string {
  const shown = error.issues.slice(0, 3).map((issue) => {
    const where = formatPath(issue.path);
    return where === '' ? issue.message : `${where}: ${issue.message}`;
  });
  const more = error.issues.length - shown.length;
  return more > 0 ? `${shown.join('; ')} (and ${more} more)` : shown.join('; ');
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// Field schemas shared by the files.

/** An ISO 8601 date-time with a zone (`Z` or an offset), decoded to a Date. */
export const dateField = z.iso
  .datetime({ offset: true, error: 'expected an ISO 8601 date-time such as 2030-01-31T00:00:00Z' })
  .transform((text) => new Date(text));

export const nullableDateField = dateField.nullable();
