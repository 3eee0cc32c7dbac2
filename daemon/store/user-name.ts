/**
 * A uid's name from /etc/passwd, for messages that tell the operator whose file it is (the data
 * dir checks, "permission denied", doctor). No lookup through NSS: a container may have no
 * passwd database at all, and then the uid alone is all there is.
 */
import { readFileSync } from 'node:fs';

/** The name /etc/passwd gives `uid`, if any. */
export function userName(uid: number): string | null {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , id] = line.split(':');
      if (name && Number(id) === uid) return name;
    }
  } catch {
    // No /etc/passwd (a container without one): the uid alone is all there is.
  }
  return null;
}
