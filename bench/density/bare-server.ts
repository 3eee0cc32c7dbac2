/**
 * The baseline of the density benchmarks (docs/performance.md, "Density"): a bare node:http
 * server run by the Node.js the binary embeds, answering "ok". What any Node.js daemon costs
 * before it does anything.
 */
import { spawn } from 'node:child_process';
import { stop } from '../../harness/processes.ts';
import type { Child } from '../e2e/processes.ts';

const BARE_SERVER =
  "const s=require('node:http').createServer((q,r)=>r.end('ok'));" +
  "s.listen(0,'127.0.0.1',()=>console.log(JSON.stringify({port:s.address().port})));" +
  "process.on('SIGTERM',()=>process.exit(0));";

/** Starts the bare server on `node` and sends it one request, as every daemon answered /healthz. */
export async function startBare(node: string): Promise<Child> {
  const child = spawn(node, ['-e', BARE_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) =>
      resolve((JSON.parse(chunk.toString()) as { port: number }).port),
    );
    child.once('exit', (code) => reject(new Error(`bare server exited ${code}`)));
  });
  await fetch(`http://127.0.0.1:${port}/`);
  return { process: child, ready: Promise.resolve({ port }), stop: async () => void (await stop(child)) };
}
