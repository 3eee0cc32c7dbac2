/**
 * The request target, read as sent: the path is routed exactly as it arrived, never normalised,
 * so `/healthz/%2e%2e/v1/server` cannot reach `/v1/server` behind a proxy that filters by path
 * prefix. A path with a `.` or `..` segment (raw or percent-encoded, any case) is 404 `not_found`
 * (docs/errors.md "Before routing").
 *
 * The query is decoded strictly: a value (or name) whose percent-encoding is not UTF-8 (a lone
 * surrogate such as `%ED%A0%80`, a broken sequence) is remembered, and validation refuses it
 * naming the parameter, instead of passing U+FFFD on as if it had been sent.
 */
import { ApiError } from '../api-error.ts';
import { hasLoneSurrogate } from '../well-formed.ts';

export interface RequestTarget {
  pathname: string;
  /** The raw query without its `?`: with the pathname, what the parameters are a function of. */
  search: string;
  searchParams: URLSearchParams;
  /** Query parameter names whose name or value is not valid UTF-8. */
  malformedQuery: readonly string[];
}

const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;
/** Only a path holding one of these can hold a dot segment. */
const MAY_HOLD_DOTS = /\.|%2e/i;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export function requestTarget(url: string): RequestTarget {
  // An absolute-form target (`GET http://host/v1/server`) is routed by its path.
  const absolute = url.startsWith('/') ? null : /^https?:\/\/[^/?#]*/i.exec(url);
  const rest = absolute ? url.slice(absolute[0].length) || '/' : url;
  const hash = rest.indexOf('#');
  const target = hash === -1 ? rest : rest.slice(0, hash);
  const question = target.indexOf('?');
  const pathname = question === -1 ? target : target.slice(0, question);
  if (MAY_HOLD_DOTS.test(pathname) && pathname.split('/').some((segment) => DOT_SEGMENT.test(segment))) {
    throw new ApiError('not_found', 'No such endpoint: a path may not hold "." or ".." segments.');
  }
  const query = question === -1 ? '' : target.slice(question + 1);
  return new Target(pathname, query);
}

/**
 * The parsed query is built on first use: a request whose validated input is already known by
 * its raw query (ValidatedInputs) never needs it.
 */
class Target implements RequestTarget {
  #searchParams: URLSearchParams | undefined;
  #malformedQuery: readonly string[] | undefined;

  constructor(
    readonly pathname: string,
    readonly search: string,
  ) {}

  get searchParams(): URLSearchParams {
    return (this.#searchParams ??= new URLSearchParams(this.search));
  }

  get malformedQuery(): readonly string[] {
    return (this.#malformedQuery ??= malformedNames(this.search));
  }
}

function malformedNames(query: string): string[] {
  if (query === '') return [];
  const names: string[] = [];
  for (const pair of query.split('&')) {
    const equals = pair.indexOf('=');
    const name = equals === -1 ? pair : pair.slice(0, equals);
    const value = equals === -1 ? '' : pair.slice(equals + 1);
    if (!wellFormed(name) || !wellFormed(value)) names.push(lenient(name));
  }
  return names;
}

/** True when the percent-decoded text is valid UTF-8 (and, raw, has no lone surrogate). */
function wellFormed(text: string): boolean {
  if (hasLoneSurrogate(text)) return false;
  if (!text.includes('%')) return true;
  try {
    strictUtf8.decode(percentDecode(text.replaceAll('+', ' ')));
    return true;
  } catch {
    return false;
  }
}

function percentDecode(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text.slice(i + 1, i + 3);
    if (text[i] === '%' && /^[0-9a-f]{2}$/i.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(text[i] as string, 'utf8'));
    }
  }
  return Buffer.from(bytes);
}

function lenient(name: string): string {
  return new URLSearchParams(`${name}=`).keys().next().value ?? name;
}
