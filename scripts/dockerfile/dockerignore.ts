/**
 * `.dockerignore` as Docker reads it (docs.docker.com/build/concepts/context, "Syntax"): one
 * pattern a line, `#` comments, Go `filepath.Match` wildcards (`*`, `?`, `[…]`) plus `**` for
 * any number of folders, a pattern that matches a folder excludes everything in it, `!` makes an
 * exception, and the last pattern that matches a path decides.
 */

interface Rule {
  exclude: boolean;
  pattern: RegExp;
}

export interface DockerIgnore {
  /** Whether `path` (relative to the context, `/`-separated) is left out of the build context. */
  excludes(path: string): boolean;
}

export function parseDockerIgnore(text: string): DockerIgnore {
  const rules: Rule[] = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const exclude = !line.startsWith('!');
      const pattern = clean(exclude ? line : line.slice(1).trim());
      return { exclude, pattern: new RegExp(`^${globToRegExp(pattern)}$`) };
    });
  return {
    excludes(path: string): boolean {
      const parts = clean(path).split('/');
      // The path itself and every folder above it: excluding a folder excludes its content.
      const candidates = parts.map((_, index) => parts.slice(0, index + 1).join('/'));
      let excluded = false;
      for (const rule of rules) {
        if (candidates.some((candidate) => rule.pattern.test(candidate))) excluded = rule.exclude;
      }
      return excluded;
    },
  };
}

function clean(path: string): string {
  return path
    .replace(/^\/+/, '')
    .replace(/\/+$/, '')
    .split('/')
    .filter((part) => part !== '' && part !== '.')
    .join('/');
}

function globToRegExp(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === '*' && glob[i + 1] === '*') {
      // `**/` matches no folder or any number of them; a trailing `**` matches everything.
      out += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (char === '*') out += '[^/]*';
    else if (char === '?') out += '[^/]';
    else if (char === '[') {
      const end = glob.indexOf(']', i);
      out += end === -1 ? '\\[' : `[${glob.slice(i + 1, end)}]`;
      i = end === -1 ? i : end;
    } else out += char.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return out;
}
