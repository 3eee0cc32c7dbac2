/**
 * The panel's files (daemon/admin/panel/panel-assets.ts, panel-bundle.ts): built from panel/
 * within the size budget, served with the security headers, the ETag and gzip; the bundle is
 * built at the first request, not before.
 */
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PANEL_CSP, PanelAssets } from '../../../../daemon/admin/panel/panel-assets.ts';
import {
  buildPanelBundle,
  PANEL_GZIP_BUDGET,
  panelGzipSize,
  type PanelBundle,
  writeRouteSummaries,
} from '../../../../daemon/admin/panel/panel-bundle.ts';
import { ADMIN_ROUTES } from '../../../../daemon/admin/routes/index.ts';
import type { ApiRequest } from '../../../../daemon/http/types.ts';
import { ROUTES } from '../../../../daemon/routes/index.ts';
import { SCOPES } from '../../../../daemon/scopes.ts';

function request(url: string, headers: Record<string, string> = {}): ApiRequest {
  return {
    method: 'GET',
    url,
    headers,
    remoteAddress: '127.0.0.1',
    hasBody: false,
    readBody: () => Promise.resolve(Buffer.alloc(0)),
  };
}

const tiny: PanelBundle = { '/panel.js': Buffer.from('console.log(1)'), '/panel.css': Buffer.from('body{}') };

describe('the panel bundle', () => {
  it('builds from panel/ within its gzipped budget, with the scopes defined in', async () => {
    const bundle = await buildPanelBundle(writeRouteSummaries([...ROUTES, ...ADMIN_ROUTES]));
    expect(panelGzipSize(bundle)).toBeLessThan(PANEL_GZIP_BUDGET);
    const js = bundle['/panel.js'].toString();
    for (const scope of SCOPES) expect(js).toContain(scope);
    expect(js).toContain('Admin token');
    expect(bundle['/panel.css'].toString()).toContain('.chart');
  });
});

describe('PanelAssets', () => {
  it('serves the page at / and /login with a strict CSP and the other security headers', async () => {
    const assets = new PanelAssets(() => Promise.resolve(tiny));
    for (const path of ['/', '/login']) {
      const response = await assets.answer(request(path), path);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['content-security-policy']).toBe(PANEL_CSP);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.body?.toString()).toContain('<script type="module" src="/panel.js"></script>');
      expect(response.body?.toString()).not.toMatch(/<script>|<style|style=/);
    }
    expect(PANEL_CSP).toContain("default-src 'self'");
    expect(PANEL_CSP).toContain("frame-ancestors 'none'");
    expect(PANEL_CSP).not.toContain('unsafe-inline');
  });

  it('answers 304 to its own ETag and gzip to a browser that accepts it', async () => {
    const assets = new PanelAssets(() => Promise.resolve(tiny));
    const first = await assets.answer(request('/panel.js'), '/panel.js');
    expect(first.headers['content-type']).toBe('text/javascript; charset=utf-8');
    const again = await assets.answer(
      request('/panel.js', { 'if-none-match': first.headers['etag']! }),
      '/panel.js',
    );
    expect(again.status).toBe(304);
    const zipped = await assets.answer(
      request('/panel.css', { 'accept-encoding': 'gzip, br' }),
      '/panel.css',
    );
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.body!).toString()).toBe('body{}');
  });

  it('builds the bundle at the first request only, and again after a failed build', async () => {
    let builds = 0;
    const assets = new PanelAssets(() =>
      ++builds === 1 ? Promise.reject(new Error('boom')) : Promise.resolve(tiny),
    );
    expect(builds).toBe(0);
    await expect(assets.answer(request('/'), '/')).rejects.toThrow('boom');
    await assets.answer(request('/'), '/');
    await assets.answer(request('/panel.css'), '/panel.css');
    expect(builds).toBe(2);
  });

  it('claims only GET and HEAD of its own paths', () => {
    expect(PanelAssets.serves('GET', '/')).toBe(true);
    expect(PanelAssets.serves('HEAD', '/panel.js')).toBe(true);
    expect(PanelAssets.serves('POST', '/')).toBe(false);
    expect(PanelAssets.serves('GET', '/admin/v1/status')).toBe(false);
    expect(PanelAssets.serves('GET', '/panel.ts')).toBe(false);
  });
});
