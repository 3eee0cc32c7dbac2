/**
 * Which of the executable's pages an idle serve keeps resident, beside a bare node:http server on
 * the Node.js the binary embeds (docs/performance.md, "The idle heap, part by part"). RSS counts
 * these file-backed pages in every process, though a host holds them once; this says what they are:
 * each resident page of the executable's mappings (from /proc/PID/pagemap's present bit) is given
 * to the symbol it lies in (`nm` of the executable, so binutils must be installed) and the symbols
 * are grouped by what they belong to (V8's compilers, OpenSSL, ICU's data, …).
 *
 *   npm run build && npx tsx bench/density/binary-pages.ts [--binary dist/modgate] [--idle-seconds 15]
 *
 * Linux only. Reading the present bit needs no privilege; the page frame numbers, which this
 * does not use, would.
 */
import { execFile } from 'node:child_process';
import { existsSync, openSync, readFileSync, readSync, closeSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { makeDataDir } from '../../harness/data-dir.ts';
import { startServe, stop } from '../../harness/processes.ts';
import { embeddedNodePath } from '../../scripts/embedded-node.ts';
import { startBare } from './bare-server.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { values } = parseArgs({
  options: {
    binary: { type: 'string', default: join(ROOT, 'dist/modgate') },
    'idle-seconds': { type: 'string', default: '15' },
  },
});
const PAGE = 4096;

/** What a symbol belongs to, first match wins (demangled names). */
const GROUPS: readonly (readonly [RegExp, string])[] = [
  [/^icudt\d+_dat$/, 'ICU data (Intl, Unicode tables)'],
  [/^v8::internal::compiler::turboshaft::|^v8::internal::compiler::/, 'V8 optimizing compiler (TurboFan)'],
  [/^v8::internal::maglev::/, 'V8 mid-tier compiler (Maglev)'],
  [/^v8::internal::wasm::/, 'V8 WebAssembly'],
  [/^Builtins_|^v8::internal::Builtins|embedded_blob/i, 'V8 builtins'],
  [/^v8::internal::(interpreter|Parser|PreParser|Scanner|ParserBase|Compiler)/, 'V8 parser and interpreter'],
  [
    /^v8::internal::(Heap|.*GC|Scavenger|MarkCompact|MinorMarkSweep|.*Sweeper)|^cppgc::/,
    'V8 garbage collector',
  ],
  [/^v8::/, 'V8, the rest'],
  [/^icu_\d+::|^u(loc|res|data|case|str|cnv|set|norm|prop|char|text)_/, 'ICU code'],
  [/^node::crypto::|^ncrypto::/, "Node's crypto binding"],
  [/^node::/, 'Node, the rest'],
  [/^uv_|^uv__/, 'libuv'],
  [
    /^(EVP_|SSL_|ssl_|tls_|BN_|bn_|OPENSSL|ossl_|CRYPTO_|X509|x509|ASN1|asn1|RSA_|rsa_|EC_|ec_|ecp_|EVP|sha\d|SHA\d|aes|AES|ChaCha|chacha|Poly1305|poly1305|OBJ_|ERR_|BIO_|PEM_|RAND_|DH_|DSA_|HMAC|OSSL)/,
    'OpenSSL',
  ],
  [/^(nghttp|llhttp)/, 'HTTP parsers'],
  [/^(simdutf|simdjson|ada::)/, 'simdutf, simdjson, ada'],
  [/inflate|deflate|zlib|[Bb]rotli|ZSTD|zstd/, 'compression'],
];

interface SymbolTable {
  starts: number[];
  ends: number[];
  groups: string[];
}

/** The executable's defined symbols that have a size, by address, each with its group. */
async function symbolsOf(file: string): Promise<SymbolTable> {
  const { stdout } = await promisify(execFile)('nm', ['-C', '-n', '-S', '--defined-only', file], {
    maxBuffer: 256 * 1024 * 1024,
  });
  const table: SymbolTable = { starts: [], ends: [], groups: [] };
  for (const line of stdout.split('\n')) {
    const match = /^([0-9a-f]+) ([0-9a-f]+) \S (.+)$/.exec(line);
    if (!match) continue;
    const start = Number.parseInt(match[1] as string, 16);
    const name = match[3] as string;
    table.starts.push(start);
    table.ends.push(start + Number.parseInt(match[2] as string, 16));
    table.groups.push(GROUPS.find(([pattern]) => pattern.test(name))?.[1] ?? 'other symbols');
  }
  return table;
}

/** The index of the last symbol starting at or before `address`, or -1. */
function symbolBefore(table: SymbolTable, address: number): number {
  let low = -1;
  let high = table.starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((table.starts[middle] as number) <= address) low = middle;
    else high = middle - 1;
  }
  return low;
}

/**
 * Where postject put the SEA blob: a note segment of its own, larger than the build's notes
 * (`readelf -lW`). None in a plain node binary.
 */
async function seaBlobAddresses(file: string): Promise<Set<number>> {
  const { stdout } = await promisify(execFile)('readelf', ['-lW', file]);
  const blobs = new Set<number>();
  for (const match of stdout.matchAll(
    /^\s*NOTE\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)/gm,
  )) {
    if (Number.parseInt(match[2] as string, 16) > 64 * 1024)
      blobs.add(Number.parseInt(match[1] as string, 16));
  }
  return blobs;
}

/** The group of the symbol a page lies in (its middle byte), or where the page lies. */
function groupOf(table: SymbolTable, address: number, mappingHasSymbols: boolean): string {
  if (!mappingHasSymbols) return 'ELF headers, dynamic symbols and relocations (no symbol)';
  const index = symbolBefore(table, address);
  if (index >= 0 && address < (table.ends[index] as number)) return table.groups[index] as string;
  return 'between symbols (unwind tables, padding)';
}

/** KB resident per group, over every mapping of the process's executable. */
async function residentByGroup(pid: number): Promise<Map<string, number>> {
  const executable = realpathSync(`/proc/${pid}/exe`);
  const table = await symbolsOf(executable);
  const blobs = await seaBlobAddresses(executable);
  const byGroup = new Map<string, number>();
  const pagemap = openSync(`/proc/${pid}/pagemap`, 'r');
  try {
    for (const line of readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')) {
      const [range, , , , , path] = line.split(/\s+/);
      if (path !== executable || range === undefined) continue;
      const [start, end] = range.split('-').map((hex) => Number.parseInt(hex, 16)) as [number, number];
      const first = symbolBefore(table, end - 1);
      const hasSymbols = first >= 0 && (table.ends[first] as number) > start;
      const blob = blobs.has(start);
      const entries = Buffer.alloc(((end - start) / PAGE) * 8);
      readSync(pagemap, entries, 0, entries.length, (start / PAGE) * 8);
      for (let page = 0; page < entries.length / 8; page++) {
        if (entries.readBigUInt64LE(page * 8) >> 63n === 0n) continue;
        const group = blob
          ? 'the SEA blob (bundle, code cache, panel)'
          : groupOf(table, start + page * PAGE + PAGE / 2, hasSymbols);
        byGroup.set(group, (byGroup.get(group) ?? 0) + PAGE / 1024);
      }
    }
  } finally {
    closeSync(pagemap);
  }
  return byGroup;
}

async function main(): Promise<void> {
  const binary = values.binary;
  if (!existsSync(binary)) {
    console.log(`no binary at ${binary}: run \`npm run build\` first; nothing measured`);
    return;
  }
  const data = await makeDataDir();
  const served = await startServe(data.dir, { program: [binary] });
  const bare = await startBare(await embeddedNodePath());
  try {
    await new Promise((resolve) => setTimeout(resolve, Number(values['idle-seconds']) * 1000));
    const serve = await residentByGroup(served.serve.pid as number);
    const baseline = await residentByGroup(bare.process.pid as number);
    const groups = [...new Set([...serve.keys(), ...baseline.keys()])].sort(
      (a, b) => (serve.get(b) ?? 0) - (baseline.get(b) ?? 0) - ((serve.get(a) ?? 0) - (baseline.get(a) ?? 0)),
    );
    const total = (m: Map<string, number>) => [...m.values()].reduce((sum, kb) => sum + kb, 0);
    console.log(`the executable's resident pages, ${values['idle-seconds']} s after start, in KB`);
    console.log(`${'serve'.padStart(8)} ${'bare'.padStart(8)} ${'more'.padStart(8)}  part`);
    for (const group of groups) {
      const [s, b] = [serve.get(group) ?? 0, baseline.get(group) ?? 0];
      console.log(`${String(s).padStart(8)} ${String(b).padStart(8)} ${String(s - b).padStart(8)}  ${group}`);
    }
    const [s, b] = [total(serve), total(baseline)];
    console.log(`${String(s).padStart(8)} ${String(b).padStart(8)} ${String(s - b).padStart(8)}  all`);
  } finally {
    await Promise.all([stop(served.serve), bare.stop()]);
    await data.remove();
  }
}

await main();
