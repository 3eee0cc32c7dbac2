/**
 * What a process costs the host, read from /proc (Linux only): resident memory as the kernel
 * counts it (`VmRSS`), split by `smaps_rollup` into what the process shares with others running
 * the same binary (its file-backed pages) and what it alone holds (anonymous memory: heap, stacks,
 * buffers). CPU time comes from bench/e2e/processes.ts (`cpuMs`).
 */
import { readFileSync } from 'node:fs';

export interface Memory {
  /** VmRSS, in KB: what `ps` and `top` show. */
  rssKb: number;
  /** Proportional set size: the shared pages divided among the processes that map them. */
  pssKb: number;
  /** Anonymous memory: heap, stacks, buffers; what one more such process adds. */
  anonKb: number;
  /** File-backed pages (the executable's code and data), shared by every process of one binary. */
  fileKb: number;
}

/** The `Name:  N kB` fields of a /proc status-like file. */
function kbFields(text: string): Map<string, number> {
  const fields = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^(\w+):\s+(\d+) kB$/.exec(line);
    if (match) fields.set(match[1] as string, Number(match[2]));
  }
  return fields;
}

export function memoryOf(pid: number): Memory {
  const status = kbFields(readFileSync(`/proc/${pid}/status`, 'utf8'));
  const rollup = kbFields(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
  const rssKb = status.get('VmRSS') ?? 0;
  const anonKb = rollup.get('Anonymous') ?? 0;
  return { rssKb, pssKb: rollup.get('Pss') ?? 0, anonKb, fileKb: (rollup.get('Rss') ?? rssKb) - anonKb };
}

/** The sum of each field of `memories`. */
export function sumMemory(memories: readonly Memory[]): Memory {
  const total: Memory = { rssKb: 0, pssKb: 0, anonKb: 0, fileKb: 0 };
  for (const m of memories) {
    total.rssKb += m.rssKb;
    total.pssKb += m.pssKb;
    total.anonKb += m.anonKb;
    total.fileKb += m.fileKb;
  }
  return total;
}

/** The median of `values` (0 for none). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = (sorted.length - 1) / 2;
  return ((sorted[Math.floor(middle)] as number) + (sorted[Math.ceil(middle)] as number)) / 2;
}
