import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureFolder, writeFileAtomic, writeJsonAtomic } from '../../../daemon/store/atomic-file.ts';
import { makeTempDir } from './temp-dir.ts';

describe('writeFileAtomic', () => {
  it('writes the contents and leaves no temp file behind', async () => {
    const dir = await makeTempDir();
    await writeFileAtomic(join(dir, 'a.json'), 'first');
    await writeFileAtomic(join(dir, 'a.json'), 'second');
    expect(await readFile(join(dir, 'a.json'), 'utf8')).toBe('second');
    expect(await readdir(dir)).toEqual(['a.json']);
  });

  it('gives the file mode 0600, also when it replaces a looser file', async () => {
    const dir = await makeTempDir();
    const target = join(dir, 'a.json');
    await writeFile(target, 'old', { mode: 0o644 });
    await writeFileAtomic(target, 'new');
    expect((await stat(target)).mode & 0o777).toBe(0o600);
  });

  it('replaces the file with a new inode, so pollers see every write', async () => {
    const dir = await makeTempDir();
    const target = join(dir, 'a.json');
    await writeFileAtomic(target, 'same');
    const before = (await stat(target)).ino;
    await writeFileAtomic(target, 'same');
    expect((await stat(target)).ino).not.toBe(before);
  });

  it('removes its temp file when the rename fails', async () => {
    const dir = await makeTempDir();
    const target = join(dir, 'taken');
    await mkdir(join(target, 'child'), { recursive: true }); // renaming a file over a non-empty folder fails
    await expect(writeFileAtomic(target, 'x')).rejects.toThrow();
    expect(await readdir(dir)).toEqual(['taken']);
  });

  it('writes JSON with two-space indentation and a trailing newline', async () => {
    const dir = await makeTempDir();
    await writeJsonAtomic(join(dir, 'a.json'), { a: 1 });
    expect(await readFile(join(dir, 'a.json'), 'utf8')).toBe('{\n  "a": 1\n}\n');
  });
});

describe('ensureFolder', () => {
  it('creates the folder and missing parents with mode 0700', async () => {
    const dir = join(await makeTempDir(), 'a', 'b');
    await ensureFolder(dir);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, '..'))).mode & 0o777).toBe(0o700);
  });
});
