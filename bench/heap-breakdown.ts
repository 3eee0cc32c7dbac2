/**
 * What an idle `modgate serve` holds in its V8 heap, by source file (docs/performance.md, "The
 * idle heap, part by part"): starts serve from this checkout (one module per source file, so every
 * function knows its file) with a data dir, waits `--idle-seconds`, has it write a heap snapshot
 * (`--heapsnapshot-signal`), and attributes every object to the file of the nearest function,
 * module or module scope that dominates it (holds it alone): a module's unexported top-level
 * state to that module, a closure's captured state to the closure's file (so a zod schema's
 * closures go to zod's files). Objects that more than one module reaches (most zod schemas:
 * the op catalogue's are reused by the route table) or that only Node's roots hold are
 * "(shared)", listed by constructor apart.
 *
 *   npx tsx bench/heap-breakdown.ts [--idle-seconds 10] [--top 30] [--snapshot FILE] [--keep]
 *
 * `--snapshot FILE` analyses a snapshot already taken (of the checkout, or of anything else);
 * `--keep` keeps the one taken, for Chrome DevTools' Memory tab.
 * Run from the checkout, the heap also holds tsx's loader and the TypeScript sources' source
 * maps, which the built binary does not; they are listed apart, so the rest can be compared.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { makeDataDir } from '../harness/data-dir.ts';
import { BIN, startServe, stop } from '../harness/processes.ts';
import { eventually } from '../harness/stack.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Snapshot {
  snapshot: {
    meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** The snapshot's flat arrays, indexed: node i's fields, its outgoing edges, its retainers. */
class Graph {
  readonly count: number;
  readonly #s: Snapshot;
  readonly #nodeWidth: number;
  readonly #edgeWidth: number;
  readonly #firstEdge: Uint32Array;
  readonly #types: string[];
  readonly #edgeTypes: string[];

  constructor(s: Snapshot) {
    this.#s = s;
    const meta = s.snapshot.meta;
    this.#nodeWidth = meta.node_fields.length;
    this.#edgeWidth = meta.edge_fields.length;
    this.#types = meta.node_types[0];
    this.#edgeTypes = meta.edge_types[0];
    this.count = s.nodes.length / this.#nodeWidth;
    this.#firstEdge = new Uint32Array(this.count + 1);
    const edgeCount = meta.node_fields.indexOf('edge_count');
    for (let i = 0, e = 0; i < this.count; i += 1) {
      this.#firstEdge[i] = e;
      e += (s.nodes[i * this.#nodeWidth + edgeCount] as number) * this.#edgeWidth;
      this.#firstEdge[i + 1] = e;
    }
  }

  type(i: number): string {
    return this.#types[this.#s.nodes[i * this.#nodeWidth] as number] as string;
  }
  name(i: number): string {
    return this.#s.strings[this.#s.nodes[i * this.#nodeWidth + 1] as number] as string;
  }
  selfSize(i: number): number {
    return this.#s.nodes[i * this.#nodeWidth + 3] as number;
  }

  /** Calls `visit(to, edgeType, edgeName)` for each edge out of node `i`. */
  edges(i: number, visit: (to: number, type: string, name: string) => void): void {
    const { edges, strings } = this.#s;
    for (let e = this.#firstEdge[i] as number; e < (this.#firstEdge[i + 1] as number); e += this.#edgeWidth) {
      const type = this.#edgeTypes[edges[e] as number] as string;
      const nameOrIndex = edges[e + 1] as number;
      const name =
        type === 'element' || type === 'hidden' ? String(nameOrIndex) : (strings[nameOrIndex] as string);
      visit((edges[e + 2] as number) / this.#nodeWidth, type, name);
    }
  }

  /** The node an edge named `name` leads to, if any. */
  edge(i: number, name: string): number | undefined {
    let found: number | undefined;
    this.edges(i, (to, _type, edgeName) => {
      if (found === undefined && edgeName === name) found = to;
    });
    return found;
  }
}

/** Depth-first post-order from the root (node 0), weak edges left out, as V8's own tools do. */
function postOrder(g: Graph): Int32Array {
  const order = new Int32Array(g.count).fill(-1);
  const seen = new Uint8Array(g.count);
  const stack: number[] = [0];
  const childrenOf = new Map<number, number[]>();
  let next = 0;
  seen[0] = 1;
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as number;
    let children = childrenOf.get(top);
    if (children === undefined) {
      children = [];
      g.edges(top, (to, type) => type !== 'weak' && children!.push(to));
      childrenOf.set(top, children.reverse());
    }
    const child = children.pop();
    if (child === undefined) {
      childrenOf.delete(top);
      stack.pop();
      order[top] = next++;
    } else if (seen[child] === 0) {
      seen[child] = 1;
      stack.push(child);
    }
  }
  return order;
}

/** Immediate dominators (Cooper, Harvey and Kennedy's iterative algorithm); -1 where unreachable. */
function dominators(g: Graph, order: Int32Array): Int32Array {
  const reachable = [...order.keys()].filter((i) => (order[i] as number) >= 0);
  const byOrder = new Int32Array(reachable.length);
  for (const i of reachable) byOrder[order[i] as number] = i;
  const retainers: number[][] = Array.from({ length: g.count }, () => []);
  for (const i of reachable) g.edges(i, (to, type) => type !== 'weak' && (retainers[to] as number[]).push(i));
  const idom = new Int32Array(g.count).fill(-1);
  idom[0] = 0;
  const intersect = (a: number, b: number): number => {
    while (a !== b) {
      while ((order[a] as number) < (order[b] as number)) a = idom[a] as number;
      while ((order[b] as number) < (order[a] as number)) b = idom[b] as number;
    }
    return a;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (let k = byOrder.length - 2; k >= 0; k -= 1) {
      const i = byOrder[k] as number;
      let candidate = -1;
      for (const r of retainers[i] as number[]) {
        if (idom[r] === -1) continue;
        candidate = candidate === -1 ? r : intersect(r, candidate);
      }
      if (candidate !== -1 && idom[i] !== candidate) {
        idom[i] = candidate;
        changed = true;
      }
    }
  }
  return idom;
}

/**
 * The source file a node belongs to by itself, if any: a function (through its shared info), a
 * shared info, a script (V8 names a script's node after its file and gives it a `source`), a
 * module (its record holds the generator that runs its top level) or a context (the scope of a
 * function of that file: a module's top-level variables live in one).
 */
function ownFile(g: Graph, i: number, contextFiles: Map<number, string>): string | undefined {
  const type = g.type(i);
  const name = g.name(i);
  if (type === 'closure') {
    const shared = g.edge(i, 'shared');
    return shared === undefined ? undefined : ownFile(g, shared, contextFiles);
  }
  if (name === 'Generator') {
    const fn = g.edge(i, 'function');
    return fn === undefined ? undefined : ownFile(g, fn, contextFiles);
  }
  if (name === 'system / SourceTextModule') {
    let file: string | undefined;
    g.edges(i, (to) => (file ??= g.name(to) === 'Generator' ? ownFile(g, to, contextFiles) : undefined));
    return file;
  }
  if (name === 'system / Context') return contextFiles.get(i);
  const script = type === 'code' ? g.edge(i, 'script_or_debug_info') : undefined;
  if (script !== undefined) return scriptName(g, script);
  return type === 'code' ? scriptName(g, i) : undefined;
}

/** Each function's context, given to that function's file (the first function seen wins). */
function contextFilesOf(g: Graph): Map<number, string> {
  const files = new Map<number, string>();
  for (let i = 0; i < g.count; i += 1) {
    if (g.type(i) !== 'closure') continue;
    const context = g.edge(i, 'context');
    if (context === undefined || files.has(context)) continue;
    const file = ownFile(g, i, files);
    if (file !== undefined) files.set(context, file);
  }
  return files;
}

function scriptName(g: Graph, script: number): string | undefined {
  return g.edge(script, 'source') === undefined ? undefined : g.name(script) || undefined;
}

/** A file's name as the report groups it: a package, a project folder/file, or Node's own. */
function groupOf(file: string): string {
  const path = file.startsWith('file://') ? fileURLToPath(file) : file;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg) return `${pkg[1]} (package)`;
  if (path.startsWith('node:') || !path.startsWith('/')) return '(node internals)';
  return relative(ROOT, path);
}

interface Breakdown {
  total: number;
  byGroup: Map<string, { size: number; objects: number }>;
  byConstructor: Map<string, { size: number; objects: number }>;
  /** What no single file holds (shared between modules, or held by Node's roots), by constructor. */
  sharedByConstructor: Map<string, { size: number; objects: number }>;
}

/** Every reachable node's own size, given to the file of its nearest dominator that has one. */
function attribute(g: Graph): Breakdown {
  const order = postOrder(g);
  const idom = dominators(g, order);
  const byOrder = [...order.keys()]
    .filter((i) => (order[i] as number) >= 0)
    .sort((a, b) => order[b]! - order[a]!);
  const owner = new Array<string>(g.count);
  const contextFiles = contextFilesOf(g);
  const result: Breakdown = {
    total: 0,
    byGroup: new Map(),
    byConstructor: new Map(),
    sharedByConstructor: new Map(),
  };
  for (const i of byOrder) {
    const file = ownFile(g, i, contextFiles);
    const dominator = idom[i] as number;
    if (file !== undefined) owner[i] = groupOf(file);
    else if (g.type(i) === 'string' && dominator !== i && scriptName(g, dominator) !== undefined)
      owner[i] = "(scripts' sources and source maps)";
    else owner[i] = i === 0 ? '(shared)' : (owner[dominator] ?? '(shared)');
    add(result.byGroup, owner[i], g.selfSize(i));
    const kind = g.type(i) === 'object' ? g.name(i) : `(${g.type(i)})`;
    add(result.byConstructor, kind, g.selfSize(i));
    if (owner[i] === '(shared)') add(result.sharedByConstructor, kind, g.selfSize(i));
    result.total += g.selfSize(i);
  }
  return result;
}

function add(map: Map<string, { size: number; objects: number }>, key: string, size: number): void {
  const entry = map.get(key) ?? { size: 0, objects: 0 };
  entry.size += size;
  entry.objects += 1;
  map.set(key, entry);
}

/** Serve from the checkout, idle for `idleSeconds`, then its heap snapshot's path. */
async function snapshotIdleServe(
  idleSeconds: number,
): Promise<{ file: string; cleanup: () => Promise<void> }> {
  const data = await makeDataDir();
  const cwd = await mkdtemp(join(tmpdir(), 'modgate-heap-'));
  const program = [process.execPath, '--heapsnapshot-signal=SIGUSR2', BIN];
  const { serve } = await startServe(data.dir, { program, cwd, extra: ['--log-level', 'warn'] });
  await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
  serve.kill('SIGUSR2');
  let file = '';
  await eventually(() => (file = written(cwd) || '') !== '', 120_000);
  await stop(serve);
  return {
    file,
    cleanup: async () => (await data.remove(), await rm(cwd, { recursive: true, force: true })),
  };
}

/** The snapshot in `dir` once Node has finished writing it (it ends with the strings array). */
function written(dir: string): string | false {
  const name = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot'));
  if (name === undefined) return false;
  const file = join(dir, name);
  const size = statSync(file).size;
  return size > 0 && readFileSync(file, 'utf8').trimEnd().endsWith(']}') ? file : false;
}

function printTable(
  title: string,
  map: Map<string, { size: number; objects: number }>,
  total: number,
  top: number,
) {
  console.log(`\n${title}`);
  const rows = [...map].sort((a, b) => b[1].size - a[1].size).slice(0, top);
  for (const [key, { size, objects }] of rows) {
    const share = ((100 * size) / total).toFixed(1).padStart(5);
    console.log(
      `  ${(size / 1024).toFixed(0).padStart(7)} KB ${share}%  ${String(objects).padStart(7)} objects  ${key}`,
    );
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'idle-seconds': { type: 'string', default: '10' },
      top: { type: 'string', default: '30' },
      snapshot: { type: 'string' },
      keep: { type: 'boolean', default: false },
    },
  });
  const taken =
    values.snapshot === undefined ? await snapshotIdleServe(Number(values['idle-seconds'])) : undefined;
  const file = values.snapshot ?? (taken as { file: string }).file;
  const graph = new Graph(JSON.parse(readFileSync(file, 'utf8')) as Snapshot);
  if (values.keep && taken) console.log(`kept ${taken.file} (open it in Chrome DevTools' Memory tab)`);
  else await taken?.cleanup();
  const result = attribute(graph);
  const top = Number(values.top);
  console.log(
    `heap snapshot of ${values.snapshot ?? 'an idle serve (checkout, tsx)'}: ${graph.count} nodes, ` +
      `${(result.total / 1048576).toFixed(1)} MB reachable`,
  );
  printTable("by source file (nearest dominating function's file)", result.byGroup, result.total, top);
  printTable('by constructor or kind', result.byConstructor, result.total, top);
  printTable('of which (shared), by constructor or kind', result.sharedByConstructor, result.total, top);
}

await main();
