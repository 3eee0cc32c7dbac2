/**
 * Doctor, TLS: the certificate and key serve would load. Readable by this user, PEM, the key
 * belongs to the certificate, the certificate valid now and for how long; and, without TLS, a
 * listen address serve accepts (plain HTTP only on loopback, docs/reverse-proxy.md).
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { formatHostPort, isLoopbackHost, type HostPort } from '../../../daemon/host-port.ts';
import { formatMode } from '../../../daemon/store/data-dir.ts';
import { errorText, fail, ok, warn, type CheckResult } from './check.ts';

const DAY_MS = 86_400_000;
/** Fewer days left than this is a warning: renewal (certbot, acme.sh) runs 30 days ahead. */
export const CERT_WARN_DAYS = 21;

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

export async function checkTls(
  tls: TlsFiles | undefined,
  listen: HostPort,
  now: Date,
): Promise<CheckResult[]> {
  if (tls === undefined) {
    if (isLoopbackHost(listen.host)) {
      return [ok('tls', `none: plain HTTP on ${formatHostPort(listen)} (loopback, for a reverse proxy)`)];
    }
    return [
      fail(
        'tls',
        `no certificate, and ${formatHostPort(listen)} is not loopback: serve refuses plain HTTP there`,
        'give --tls-cert and --tls-key (or api.tls_cert / api.tls_key), or listen on 127.0.0.1 behind a proxy',
      ),
    ];
  }
  const results: CheckResult[] = [];
  const cert = await loadCertificate(tls.certFile, results);
  const key = await loadKey(tls.keyFile, results);
  if (cert && key) {
    results.push(
      cert.checkPrivateKey(key)
        ? ok('tls key', `${tls.keyFile} matches the certificate`)
        : fail(
            'tls key',
            `${tls.keyFile} is not the key of ${tls.certFile}`,
            'pass the key the certificate was issued for (with certbot: privkey.pem beside fullchain.pem)',
          ),
    );
  }
  if (cert) results.push(validity(cert, tls.certFile, now));
  return results;
}

async function loadCertificate(path: string, results: CheckResult[]): Promise<X509Certificate | null> {
  let pem: Buffer;
  try {
    pem = await readFile(path);
  } catch (error) {
    results.push(fail('tls certificate', `${path} ${errorText(error)}`, readFix(path)));
    return null;
  }
  try {
    // The first certificate of a chain file is the server's own (leaf first, as serve sends it).
    const cert = new X509Certificate(pem);
    results.push(ok('tls certificate', `${path}: ${cert.subject.replace(/\n/g, ', ')}`));
    return cert;
  } catch {
    results.push(
      fail('tls certificate', `${path} is not a PEM certificate`, 'give the PEM chain (fullchain.pem)'),
    );
    return null;
  }
}

async function loadKey(path: string, results: CheckResult[]): Promise<KeyObject | null> {
  let pem: Buffer;
  try {
    pem = await readFile(path);
  } catch (error) {
    results.push(fail('tls key', `${path} ${errorText(error)}`, readFix(path)));
    return null;
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (error) {
    const encrypted = /passphrase/i.test((error as Error).message);
    results.push(
      fail(
        'tls key',
        encrypted ? `${path} is encrypted` : `${path} is not a PEM private key`,
        encrypted
          ? `decrypt it: openssl pkey -in ${path} -out KEY.pem`
          : 'give the PEM private key (privkey.pem)',
      ),
    );
    return null;
  }
  const mode = (await stat(path)).mode;
  if ((mode & 0o007) !== 0) {
    results.push(
      warn('tls key', `${path} is readable by every user (mode ${formatMode(mode)})`, `chmod 600 ${path}`),
    );
  }
  return key;
}

function validity(cert: X509Certificate, path: string, now: Date): CheckResult {
  const from = new Date(cert.validFrom);
  const to = new Date(cert.validTo);
  const renew = `renew ${path}; a running daemon picks the new files up by itself`;
  if (now < from) {
    return fail(
      'tls validity',
      `not valid before ${from.toISOString()}`,
      'check the clock, or use a valid certificate',
    );
  }
  if (now >= to) return fail('tls validity', `expired ${to.toISOString()}`, renew);
  const days = Math.floor((to.getTime() - now.getTime()) / DAY_MS);
  const text = `valid until ${to.toISOString()} (${days} day${days === 1 ? '' : 's'} left)`;
  return days < CERT_WARN_DAYS ? warn('tls validity', text, renew) : ok('tls validity', text);
}

function readFix(path: string): string {
  return `check the path, and that the daemon's user can read it: ls -l ${path}`;
}
