/**
 * `API-Version` on every response (docs/pipeline.md; its format is ours to choose):
 * `<major>.<minor>`. The major is the path's version; the minor grows when v1 gains fields or
 * endpoints, so a client can tell which additions a daemon has. CHANGELOG.md records each bump.
 */
export const API_VERSION = '1.0';
