/**
 * Where a V8 CPU profile (`--cpu-prof`) spends its time: self time per function, and per file,
 * heaviest first. Used on the serve process of e2e-http.ts (`--cpu-prof DIR`).
 *
 *   npx tsx bench/e2e/profile-top.ts <file.cpuprofile> [--top 40] [--skip-ms 8000]
 *
 * `--skip-ms` leaves out the first milliseconds of the profile (start-up, module loading).
 * `--inclusive` adds each function's total time, its callees' included: where a stage's whole
 * cost lies when its self time is spread over many small functions.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}

const { values, positionals } = parseArgs({
  options: {
    top: { type: 'string', default: '40' },
    'skip-ms': { type: 'string', default: '0' },
    inclusive: { type: 'boolean', default: false },
  },
  allowPositionals: true,
});
const profile = JSON.parse(readFileSync(positionals[0] as string, 'utf8')) as {
  nodes: Node[];
  startTime: number;
  endTime: number;
  timeDeltas: number[];
};
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map<number, number>();
const samples = (profile as unknown as { samples: number[] }).samples;
const skipUs = Number(values['skip-ms']) * 1000;
let at = 0;
samples.forEach((id, i) => {
  at += profile.timeDeltas[i] ?? 0;
  if (at >= skipUs) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
for (const id of idle) self.delete(id);
const total = [...self.values()].reduce((a, b) => a + b, 0);
const nameOf = (frame: Node['callFrame']) => {
  const file = frame.url.replace(/^.*\/(node_modules\/[^/]+|[^/]+\/[^/]+)\//, '$1/') || '(native)';
  return { file, name: `${frame.functionName || '(anonymous)'}  ${file}:${frame.lineNumber + 1}` };
};
const functions = new Map<string, number>();
const files = new Map<string, number>();
for (const [id, micros] of self) {
  const { file, name } = nameOf((byId.get(id) as Node).callFrame);
  functions.set(name, (functions.get(name) ?? 0) + micros);
  files.set(file, (files.get(file) ?? 0) + micros);
}
const show = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [name, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
    console.log(`${((100 * micros) / total).toFixed(1).padStart(5)}%  ${name}`);
  }
};
console.log(`${(total / 1e6).toFixed(1)} s busy (idle left out; percentages are of busy time)`);
show('self time by function', functions);
show('self time by file', files);
if (values.inclusive) {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map<string, number>();
  for (const [id, micros] of self) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { name } = nameOf((byId.get(at) as Node).callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + micros);
    }
  }
  show('total time by function, callees included', inclusive);
}
