/**
 * The HTTPS listener's certificate and key files: read at start, read again on every reload
 * (SIGHUP) and when either file changes on disk (polled once a second, so a renewed certificate
 * takes effect by itself; docs/configuration.md, what a reload changes). A pair that cannot be
 * read leaves the listener serving the previous one, with an error in the log.
 */
import { unwatchFile, watchFile } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Logger } from '../log/log.ts';
import type { HttpServerHandle } from './node-adapter.ts';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

export interface TlsPair {
  cert: Buffer;
  key: Buffer;
}

/** The files' reloading, once the listener serves the first pair. */
export interface TlsWatch {
  /** Reads the pair again and hands it to the listener; nothing without TLS. */
  reload(): Promise<void>;
  /** Stops watching the files. */
  close(): void;
}

export async function readTls(files: TlsFiles): Promise<TlsPair> {
  const [cert, key] = await Promise.all([readFile(files.certFile), readFile(files.keyFile)]);
  return { cert, key };
}

/** Watches `files` (none without TLS) and reloads `server`'s pair when either changes. */
export function watchTls(
  files: TlsFiles | undefined,
  server: Pick<HttpServerHandle, 'reloadTls'>,
  log: Logger,
): TlsWatch {
  const reload = async () => {
    if (!files) return;
    try {
      server.reloadTls(await readTls(files));
      log.info('certificate reloaded', { cert: files.certFile });
    } catch (error) {
      log.error('certificate reload failed; still serving the previous one', {
        error: (error as Error).message,
      });
    }
  };
  const watched = files ? [files.certFile, files.keyFile] : [];
  for (const file of watched) watchFile(file, { interval: 1_000, persistent: false }, () => void reload());
  return {
    reload,
    close: () => {
      for (const file of watched) unwatchFile(file);
    },
  };
}
