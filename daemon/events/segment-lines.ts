/**
 * Reading a segment file as a stream of lines with a maximum line length, so that no line, however
 * long, is ever held whole: a line past `maxLineBytes` is reported without its text (the reader
 * skips it), and memory stays at one read chunk plus one line. A line a few hundred megabytes long
 * that became one JavaScript string would pass V8's string limit and throw; here it is just
 * skipped. Used when the event log is loaded at start-up; `log.ts` reads events by their known
 * byte offsets with the same limit.
 */
import { openDataFile } from '../store/data-dir-fs.ts';

const CHUNK_BYTES = 1024 * 1024;

export interface LineAt {
  /** Byte offset of the line's first byte. */
  start: number;
  /** The line without its newline, or null when it is longer than the limit. */
  text: string | null;
}

export interface LinesEnd {
  /** One past the last complete line's newline. */
  complete: number;
  /** The file's size; bytes past `complete` are a torn last line. */
  size: number;
}

/** Each complete line of `path`, in order; returns where the complete lines end. */
export async function* readLines(path: string, maxLineBytes: number): AsyncGenerator<LineAt, LinesEnd> {
  const handle = await openDataFile(path, 'read');
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let pieces: Buffer[] = [];
    let pending = 0; // bytes of the current line seen so far
    let lineStart = 0;
    let position = 0;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, position);
      if (bytesRead === 0) break;
      let from = 0;
      let newline = chunk.indexOf(10, from);
      while (newline !== -1 && newline < bytesRead) {
        const length = pending + newline - from;
        const text =
          length > maxLineBytes
            ? null
            : Buffer.concat([...pieces, chunk.subarray(from, newline)]).toString('utf8');
        yield { start: lineStart, text };
        lineStart = position + newline + 1;
        pieces = [];
        pending = 0;
        from = newline + 1;
        newline = chunk.indexOf(10, from);
      }
      const rest = bytesRead - from;
      if (pending + rest <= maxLineBytes) pieces.push(Buffer.from(chunk.subarray(from, bytesRead)));
      else pieces = []; // too long already: stop keeping its bytes
      pending += rest;
      position += bytesRead;
    }
    return { complete: lineStart, size: position };
  } finally {
    await handle.close();
  }
}

/** How many lines `path` has, a torn last one included (newlines + 1). */
export async function countLines(path: string): Promise<number> {
  const handle = await openDataFile(path, 'read');
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let count = 1;
    let position = 0;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, position);
      if (bytesRead === 0) return count;
      for (let at = chunk.indexOf(10); at !== -1 && at < bytesRead; at = chunk.indexOf(10, at + 1))
        count += 1;
      position += bytesRead;
    }
  } finally {
    await handle.close();
  }
}
