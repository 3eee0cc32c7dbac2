/**
 * The audit log's files as a reader sees them: `audit.jsonl` and the copies a rotation left
 * beside it (`audit.jsonl.1`, `audit.jsonl.2.gz`, logrotate's `dateext` names such as
 * `audit.jsonl-20301231` and `.gz` of each; docs/admin.md, "Audit log"). Each file is known by
 * its **head**, a digest of its first line: moving or compressing a file keeps its first line,
 * so a position `{head, offset}` still names the same line after a rotation renamed the file or
 * gzip rewrote it (the offset counts the uncompressed bytes).
 *
 * Reading never loads a file whole: a plain file is read backwards in chunks from a position; a
 * compressed one is streamed forward through gunzip up to a position, keeping only what the
 * caller keeps. Both give complete lines only: a line still being written (no newline yet) is
 * not one.
 */
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { openDataFile } from '../store/data-dir-fs.ts';
import { AUDIT_FILE } from './audit-log.ts';

/** How much a backward read takes at a time. */
const CHUNK_BYTES = 64 * 1024;
/** A line longer than this is not an audit line (they are a few hundred bytes): skipped. */
export const MAX_AUDIT_LINE_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

const ROTATED = new RegExp(`^${AUDIT_FILE.replace('.', '\\.')}([.-][A-Za-z0-9_.-]{1,64})?$`);

export interface AuditFile {
  readonly name: string;
  readonly path: string;
  readonly compressed: boolean;
  /** Digest of the first line; null for an empty file (nothing to read in it yet). */
  readonly head: string | null;
  /** The first line's `time`, which orders rotated files newest first; '' when unknown. */
  readonly headTime: string;
}

/** One complete line and where it starts (uncompressed byte offset). */
export interface AuditLineAt {
  readonly text: string;
  readonly start: number;
}

/**
 * The audit files, newest first: `audit.jsonl`, then the rotated ones by their first line's time
 * (which every naming scheme agrees with), at most `maxFiles` in all.
 */
export async function auditFiles(dataDir: string, maxFiles: number): Promise<AuditFile[]> {
  const names = (await readdir(dataDir)).filter((name) => ROTATED.test(name));
  const files: AuditFile[] = [];
  for (const name of names) {
    const file = await describe(join(dataDir, name), name).catch(() => null);
    if (file !== null && file.head !== null) files.push(file);
  }
  files.sort((a, b) => {
    if (a.name === AUDIT_FILE || b.name === AUDIT_FILE) return a.name === AUDIT_FILE ? -1 : 1;
    return a.headTime === b.headTime ? a.name.localeCompare(b.name) : a.headTime < b.headTime ? 1 : -1;
  });
  return files.slice(0, maxFiles);
}

async function describe(path: string, name: string): Promise<AuditFile> {
  const compressed = name.endsWith('.gz');
  const handle = await openDataFile(path, 'read');
  try {
    const first = compressed ? await firstCompressedLine(handle) : await firstPlainLine(handle);
    if (first === null) return { name, path, compressed, head: null, headTime: '' };
    return { name, path, compressed, head: headOf(first), headTime: timeOf(first) };
  } finally {
    await handle.close();
  }
}

function headOf(firstLine: Buffer): string {
  return createHash('sha256').update(firstLine).digest('base64url').slice(0, 22);
}

function timeOf(line: Buffer): string {
  try {
    const time = (JSON.parse(line.toString('utf8')) as { time?: unknown }).time;
    return typeof time === 'string' ? time : '';
  } catch {
    return '';
  }
}

/** The first complete line (without its newline), or null when there is none yet. */
async function firstPlainLine(handle: FileHandle): Promise<Buffer | null> {
  const buffer = Buffer.alloc(MAX_AUDIT_LINE_BYTES + 1);
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
  const end = buffer.subarray(0, bytesRead).indexOf(NEWLINE);
  return end === -1 ? null : buffer.subarray(0, end);
}

async function firstCompressedLine(handle: FileHandle): Promise<Buffer | null> {
  let found: Buffer | null = null;
  await streamCompressed(handle, Infinity, (line) => {
    found = Buffer.from(line.text, 'utf8');
    return false;
  });
  return found;
}

/**
 * Where reading a file's newest lines starts: a plain file's size now; for a compressed one, its
 * end, whatever its uncompressed size.
 */
export async function endOf(file: AuditFile): Promise<number> {
  if (file.compressed) return Infinity;
  const handle = await openDataFile(file.path, 'read');
  try {
    return (await handle.stat()).size;
  } finally {
    await handle.close();
  }
}

/**
 * Calls `visit` with each complete line that ends at or before `end`, newest first, until it
 * returns false. `end` is a line's start (a position handed out before) or the file's size.
 */
export async function readPlainBackward(
  path: string,
  end: number,
  visit: (line: AuditLineAt) => boolean | Promise<boolean>,
): Promise<void> {
  const handle = await openDataFile(path, 'read');
  try {
    let pos = end;
    /** Bytes of the line being assembled, from the chunk start to its newline (included). */
    let tail = Buffer.alloc(0);
    let terminated = false;
    while (pos > 0) {
      const size = Math.min(CHUNK_BYTES, pos);
      pos -= size;
      const chunk = Buffer.alloc(size);
      await readFully(handle, chunk, pos);
      const data = tail.length === 0 ? chunk : Buffer.concat([chunk, tail]);
      // Index of the newline ending the next line to give; -1 while in an unfinished last line.
      let lineEnd: number = terminated ? data.length - 1 : -1;
      let newline = lastNewline(data, lineEnd === -1 ? data.length : lineEnd);
      while (newline !== -1) {
        if (lineEnd !== -1 && lineEnd - newline - 1 <= MAX_AUDIT_LINE_BYTES) {
          const text = data.subarray(newline + 1, lineEnd).toString('utf8');
          if (!(await visit({ text, start: pos + newline + 1 }))) return;
        }
        lineEnd = newline;
        newline = lastNewline(data, newline);
      }
      terminated = lineEnd !== -1;
      // An over-long line keeps only its newline: what is given of it later does not parse.
      tail = !terminated ? Buffer.alloc(0) : data.subarray(0, lineEnd + 1);
      if (tail.length > MAX_AUDIT_LINE_BYTES) tail = data.subarray(lineEnd, lineEnd + 1);
    }
    if (terminated && tail.length > 1) await visit({ text: tail.subarray(0, -1).toString('utf8'), start: 0 });
  } finally {
    await handle.close();
  }
}

/** The last newline before index `before` (a negative offset would search from the end). */
function lastNewline(data: Buffer, before: number): number {
  return before <= 0 ? -1 : data.lastIndexOf(NEWLINE, before - 1);
}

async function readFully(handle: FileHandle, into: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < into.length) {
    const { bytesRead } = await handle.read(into, done, into.length - done, position + done);
    if (bytesRead === 0) throw new Error('the audit file shrank while it was read');
    done += bytesRead;
  }
}

/** Calls `visit` with each complete line of a gzip file that ends at or before `end`, oldest first. */
export async function readCompressedForward(
  path: string,
  end: number,
  visit: (line: AuditLineAt) => boolean,
): Promise<void> {
  const handle = await openDataFile(path, 'read');
  try {
    await streamCompressed(handle, end, visit);
  } finally {
    await handle.close();
  }
}

function streamCompressed(
  handle: FileHandle,
  end: number,
  visit: (line: AuditLineAt) => boolean,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const source = handle.createReadStream({ start: 0, autoClose: false });
    const gunzip = createGunzip();
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    /** Uncompressed offset of the first pending byte. */
    let lineStart = 0;
    let stopped = false;
    const stop = () => {
      stopped = true;
      source.unpipe(gunzip);
      source.destroy();
      gunzip.destroy();
      resolve();
    };
    gunzip.on('data', (chunk: Buffer) => {
      if (stopped) return;
      let from = 0;
      let newline = chunk.indexOf(NEWLINE);
      while (newline !== -1) {
        const length = pendingBytes + newline - from;
        const lineEnd = lineStart + length + 1;
        if (lineEnd > end) return stop();
        if (length <= MAX_AUDIT_LINE_BYTES) {
          const text = Buffer.concat([...pending, chunk.subarray(from, newline)]).toString('utf8');
          if (!visit({ text, start: lineStart })) return stop();
        }
        pending = [];
        pendingBytes = 0;
        lineStart = lineEnd;
        from = newline + 1;
        newline = chunk.indexOf(NEWLINE, from);
      }
      const rest = chunk.subarray(from);
      pendingBytes += rest.length;
      // An over-long line is counted, not kept.
      if (pendingBytes <= MAX_AUDIT_LINE_BYTES) pending.push(rest);
      else pending = [];
    });
    gunzip.on('end', () => {
      if (!stopped) resolve();
    });
    gunzip.on('error', (error) => (stopped ? resolve() : reject(error)));
    source.on('error', (error) => (stopped ? resolve() : reject(error)));
    source.pipe(gunzip);
  });
}
