/**
 * What each part of serve adds to the V8 heap by being imported (docs/performance.md, "The idle
 * heap, part by part"): imports the parts one after another in one process of this checkout and
 * prints the heap in use after a full collection at each step, so each line is what that part adds
 * to those above it (zod's code first, then the op catalogue's schemas, the route table's, and so
 * on). From a checkout each module also keeps its TypeScript source and tsx's source map in the
 * heap (about a quarter of each figure); the binary keeps its one bundle's source instead.
 *
 *   node --expose-gc --import tsx bench/density/import-heap.ts
 */
const STEPS: readonly (readonly [string, string])[] = [
  ['zod (the package)', 'zod'],
  ['protocol/ops (the op catalogue)', '../../protocol/ops/index.ts'],
  ['protocol/link-server.ts (the mod link, msgpackr, ws)', '../../protocol/link-server.ts'],
  ['daemon/routes (the route table)', '../../daemon/routes/index.ts'],
  ['daemon/openapi (code only; the document is built on first request)', '../../daemon/openapi/openapi.ts'],
  ['daemon/http/pipeline.ts (the /v1 pipeline, its stages, the read cache)', '../../daemon/http/pipeline.ts'],
  ['daemon/http/node-adapter.ts (node:http, the connection guard)', '../../daemon/http/node-adapter.ts'],
  ['daemon/admin/admin-server.ts (the admin server, panel gate)', '../../daemon/admin/admin-server.ts'],
  ['daemon/admin/routes (the admin route table)', '../../daemon/admin/routes/index.ts'],
  ['daemon/daemon.ts (the rest of the daemon)', '../../daemon/daemon.ts'],
  ['cli/program.ts (the CLI, every command)', '../../cli/program.ts'],
  [
    'daemon/metrics/prometheus.ts (prom-client; serve loads it only with metrics on)',
    '../../daemon/metrics/prometheus.ts',
  ],
];

/** The heap in use, in KB, after two full collections. */
function heapUsedKb(): number {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('run with node --expose-gc');
  collect();
  collect();
  return process.memoryUsage().heapUsed / 1024;
}

let before = heapUsedKb();
console.log(`heap in use before any import: ${before.toFixed(0)} KB (Node ${process.version}, tsx)`);
for (const [label, specifier] of STEPS) {
  await import(specifier);
  const after = heapUsedKb();
  console.log(`  +${(after - before).toFixed(0).padStart(6)} KB  ${label}`);
  before = after;
}
console.log(`heap in use after all: ${before.toFixed(0)} KB`);
