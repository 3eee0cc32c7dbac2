/**
 * Does the image build for both architectures (docs/docker.md, "Both architectures")? The build
 * stage must run on the target platform (no `FROM --platform=`), so the embedded Node.js of that
 * architecture runs natively there, and must turn Docker's TARGETARCH into the `--arch` of
 * scripts/build.ts. The mapping is the RUN line's own shell `case`, run here with sh for each
 * platform: amd64 and arm64 must each give an architecture scripts/embedded-node.json pins, and
 * any other must stop the build. The images themselves are not built here (no Docker engine).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { isArch, readPin } from '../embedded-node.ts';
import type { Stage } from './parse.ts';
import type { Check } from './static-checks.ts';

const run = promisify(execFile);
/** Docker's platform names and the architecture each must build. */
const PLATFORMS: Readonly<Record<string, string>> = { amd64: 'x64', arm64: 'arm64' };

export async function checkArchitectures(stages: readonly Stage[]): Promise<Check[]> {
  const build = stages.find((stage) =>
    stage.instructions.some((i) => i.keyword === 'RUN' && /npm run build/.test(i.text)),
  );
  if (build === undefined) return [{ level: 'fail', text: 'architectures: no stage runs npm run build' }];
  const checks: Check[] = [];
  const platform = build.fromFlags['platform'];
  checks.push(
    platform === undefined
      ? { level: 'ok', text: `FROM ${build.image}: runs on the target platform, its Node.js native there` }
      : {
          level: 'fail',
          text: `FROM --platform=${platform} ${build.image}: builds with the build platform's Node.js`,
        },
  );
  const declared = build.instructions.some((i) => i.keyword === 'ARG' && /^TARGETARCH\b/.test(i.text));
  if (!declared)
    checks.push({ level: 'fail', text: 'build stage: no ARG TARGETARCH, so every platform builds x64' });
  const line = build.instructions.find((i) => i.keyword === 'RUN' && /npm run build/.test(i.text))!;
  const mapping = /^(case\b.*?\besac)\s*&&.*npm run build -- --arch "\$arch"/s.exec(line.text)?.[1];
  if (mapping === undefined) {
    return [
      ...checks,
      {
        level: 'fail',
        text: `RUN (line ${line.line}): no case on TARGETARCH before npm run build -- --arch "$arch"`,
      },
    ];
  }
  for (const [docker, expected] of Object.entries(PLATFORMS))
    checks.push(await mapped(mapping, docker, expected));
  const other = await archFor(mapping, '386');
  checks.push(
    other === null
      ? { level: 'ok', text: 'TARGETARCH 386: the build stops with an error' }
      : { level: 'fail', text: `TARGETARCH 386: builds ${other} instead of stopping` },
  );
  return checks;
}

async function mapped(mapping: string, docker: string, expected: string): Promise<Check> {
  const arch = await archFor(mapping, docker);
  if (arch !== expected)
    return { level: 'fail', text: `TARGETARCH ${docker}: builds ${arch ?? 'nothing'}, not ${expected}` };
  if (!isArch(arch))
    return { level: 'fail', text: `TARGETARCH ${docker}: ${arch} is no architecture build.ts knows` };
  const pin = await readPin(arch);
  return { level: 'ok', text: `TARGETARCH ${docker}: builds ${arch} with ${pin.package}@${pin.version}` };
}

/** The `$arch` the Dockerfile's case sets for TARGETARCH, or null when it fails. */
async function archFor(mapping: string, targetArch: string): Promise<string | null> {
  const result = await run('sh', ['-c', `${mapping} && printf %s "$arch"`], {
    env: { TARGETARCH: targetArch },
  }).catch(() => null);
  return result?.stdout || null;
}
