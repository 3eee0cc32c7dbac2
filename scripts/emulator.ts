/**
 * Running a program built for another architecture on this machine: the arm64 `node` the arm64
 * binary embeds must itself write that binary's code cache and SEA blob (scripts/build.ts), and
 * tests run the arm64 binary. On an x86-64 host it runs under `qemu-aarch64-static` (Debian's
 * `qemu-user-static`), with the arm64 C and C++ libraries of Debian's `libc6-arm64-cross` and
 * `libstdc++6-arm64-cross` as its root for the dynamic loader (`-L`). A program for this
 * machine's own architecture runs as it is.
 */
import { existsSync } from 'node:fs';
import type { Arch } from './embedded-node.ts';

interface Emulation {
  /** The qemu user-mode emulator for programs of that architecture. */
  qemu: string;
  /** Where the cross packages put that architecture's libraries and its dynamic loader. */
  sysroot: string;
  /** The Debian packages that provide both. */
  packages: string;
}

const EMULATION: Readonly<Record<Arch, Emulation>> = {
  arm64: {
    qemu: '/usr/bin/qemu-aarch64-static',
    sysroot: '/usr/aarch64-linux-gnu',
    packages: 'qemu-user-static libc6-arm64-cross libstdc++6-arm64-cross',
  },
  x64: {
    qemu: '/usr/bin/qemu-x86_64-static',
    sysroot: '/usr/x86_64-linux-gnu',
    packages: 'qemu-user-static libc6-amd64-cross libstdc++6-amd64-cross',
  },
};

/** Whether a program for `arch` can run here, natively or emulated. */
export function canRun(arch: Arch): boolean {
  if (arch === process.arch) return true;
  const emulation = EMULATION[arch];
  return existsSync(emulation.qemu) && existsSync(emulation.sysroot);
}

/**
 * The command line that runs `program` (built for `arch`) here: the program itself on a machine
 * of that architecture, else the emulator with the program as its first argument. Throws, naming
 * the packages to install, when the emulator is missing.
 */
export function runCommand(arch: Arch, program: string): [string, ...string[]] {
  if (arch === process.arch) return [program];
  if (!canRun(arch)) {
    const { packages } = EMULATION[arch];
    throw new Error(`running ${arch} programs on ${process.arch} needs qemu: apt-get install ${packages}`);
  }
  const { qemu, sysroot } = EMULATION[arch];
  return [qemu, '-L', sysroot, program];
}
