/**
 * WebSocket masking (RFC 6455 §5.3) a 32-bit word at a time, with the API of ws's optional native
 * `bufferutil`. The executable cannot load a native addon, so its bundle takes this module in
 * `bufferutil`'s place (scripts/build.ts); ws then calls it for every frame of 32 bytes or more,
 * where its own fallback XORs one byte per turn of a loop: 2.4 µs for the 1.9 KB answer to a
 * proxied read, against 0.3 µs here (docs/performance-history.md,
 * "The proxied read under 60 µs"). The results are ws's, byte for byte.
 */

/** Four bytes of the key, rotated to start at `from`, read as one word in the platform's order. */
const KEY_BYTES = new Uint8Array(4);
const KEY_WORD = new Int32Array(KEY_BYTES.buffer);

function keyWord(key: Uint8Array, from: number): number {
  for (let j = 0; j < 4; j += 1) KEY_BYTES[j] = key[(from + j) & 3] as number;
  return KEY_WORD[0] as number;
}

/** `buffer` XOR the four-byte `key`, in place (what a receiver does to a masked payload). */
export function unmask(buffer: Uint8Array, key: Uint8Array): void {
  const { length } = buffer;
  let i = 0;
  // Bytes up to the first 4-byte boundary of the underlying memory, then whole words, then the tail.
  const head = Math.min((4 - (buffer.byteOffset & 3)) & 3, length);
  for (; i < head; i += 1) buffer[i] = (buffer[i] as number) ^ (key[i & 3] as number);
  const words = (length - i) >>> 2;
  if (words > 0) {
    const word = keyWord(key, i);
    const view = new Int32Array(buffer.buffer, buffer.byteOffset + i, words);
    for (let w = 0; w < words; w += 1) view[w] = (view[w] as number) ^ word;
    i += words << 2;
  }
  for (; i < length; i += 1) buffer[i] = (buffer[i] as number) ^ (key[i & 3] as number);
}

/** Writes `length` bytes of `source` XOR `key` into `output` from `offset` (what a sender does). */
export function mask(
  source: Uint8Array,
  key: Uint8Array,
  output: Uint8Array,
  offset: number,
  length: number,
): void {
  let i = 0;
  // Word by word only where source and output share their alignment.
  if (((source.byteOffset ^ (output.byteOffset + offset)) & 3) === 0) {
    const head = Math.min((4 - (source.byteOffset & 3)) & 3, length);
    for (; i < head; i += 1) output[offset + i] = (source[i] as number) ^ (key[i & 3] as number);
    const words = (length - i) >>> 2;
    if (words > 0) {
      const word = keyWord(key, i);
      const from = new Int32Array(source.buffer, source.byteOffset + i, words);
      const to = new Int32Array(output.buffer, output.byteOffset + offset + i, words);
      for (let w = 0; w < words; w += 1) to[w] = (from[w] as number) ^ word;
      i += words << 2;
    }
  }
  for (; i < length; i += 1) output[offset + i] = (source[i] as number) ^ (key[i & 3] as number);
}
