/** The files under a folder this process holds open, read from /proc/self/fd (Linux). */
import { readdir, readlink } from 'node:fs/promises';

export async function openFilesUnder(dir: string): Promise<string[]> {
  const held: string[] = [];
  for (const fd of await readdir('/proc/self/fd')) {
    // A descriptor closed between the listing and its readlink is not held.
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target.startsWith(`${dir}/`)) held.push(target);
  }
  return held;
}
