/**
 * The HTTPS listener's certificate and key files: read at start, read again on every reload
 * (SIGHUP) and when their folders change on disk (fs.watch, so a renewed certificate takes effect
 * by itself and an idle daemon makes no call for it; docs/configuration.md, what a reload
 * changes). A pair that cannot be read leaves the listener serving the previous one, with an
 * error in the log.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
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

/**
 * Watches the folders of `files` (none without TLS) and reloads `server`'s pair when it changed.
 * The folders, not the files: a renewal replaces a file or swaps a link in its folder (certbot's
 * live/, a mounted secret's `..data`), which a watch on the file itself stops seeing. Any event
 * in them leads to a read; only a pair that differs from the one served is handed over.
 */
export function watchTls(
  files: TlsFiles | undefined,
  server: Pick<HttpServerHandle, 'reloadTls'>,
  log: Logger,
  initial?: TlsPair,
): TlsWatch {
  let served = initial ?? null;
  const reload = async (onlyIfChanged = false) => {
    if (!files) return;
    try {
      const pair = await readTls(files);
      if (onlyIfChanged && served && pair.cert.equals(served.cert) && pair.key.equals(served.key)) return;
      server.reloadTls(pair);
      served = pair;
      log.info('certificate reloaded', { cert: files.certFile });
    } catch (error) {
      log.error('certificate reload failed; still serving the previous one', {
        error: (error as Error).message,
      });
    }
  };
  const watchers = files ? watchFolders([files.certFile, files.keyFile], () => reload(true), log) : [];
  return {
    reload: () => reload(),
    close: () => {
      for (const watcher of watchers) watcher.close();
    },
  };
}

/** One watch per folder of `paths`; the events of one turn lead to one `changed()`. */
function watchFolders(paths: readonly string[], changed: () => Promise<void>, log: Logger): FSWatcher[] {
  let queued = false;
  const onEvent = () => {
    if (queued) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      void changed();
    });
  };
  const unwatched = (folder: string, error: Error) =>
    log.warn('certificate folder is not watched; a reload (SIGHUP) picks up a new certificate', {
      folder,
      error: error.message,
    });
  return [...new Set(paths.map((path) => dirname(path)))].flatMap((folder) => {
    try {
      const watcher = watch(folder, { persistent: false }, onEvent);
      watcher.on('error', (error) => (watcher.close(), unwatched(folder, error)));
      return [watcher];
    } catch (error) {
      unwatched(folder, error as Error);
      return [];
    }
  });
}
