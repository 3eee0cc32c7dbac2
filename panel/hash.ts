/**
 * The location's hash as the panel uses it: `#/page?name=value`, a page and its own query (the
 * Audit page's filters), so a reload or a shared link shows the same page with the same filters.
 * The query stays in the fragment, which the browser never sends to a server.
 */

/** `audit` from `#/audit?route=/v1/x`. */
export function hashPage(): string {
  return location.hash.replace(/^#\/?/, '').split('?')[0] ?? '';
}

/** The hash's query, `route=/v1/x` from `#/audit?route=/v1/x`. */
export function hashParams(): URLSearchParams {
  const at = location.hash.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : location.hash.slice(at + 1));
}

/**
 * Rewrites the hash's query in place (the non-empty values): no new history entry and no
 * `hashchange`, so the page does not reload itself for its own change.
 */
export function replaceHashParams(params: Record<string, string>): void {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== '') search.set(name, value);
  const text = search.toString();
  history.replaceState(null, '', `#/${hashPage()}${text === '' ? '' : `?${text}`}`);
}
