/**
 * Input stages: body (415 → 413 → 400 not UTF-8 or bad JSON) then validation of params, query and
 * body, the one place validation happens. zod issues become `details.errors`, never leaked raw;
 * text that is not valid Unicode (well-formed.ts) is refused there too, naming the field.
 */
import * as z from 'zod';
import type { AnyRoute } from '../define-route.ts';
import { ApiError } from '../api-error.ts';
import { type ApiRequest, PayloadTooLarge } from '../types.ts';
import type { RequestTarget } from './target.ts';
import { illFormedStrings } from '../well-formed.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const NOT_UNICODE = 'not valid Unicode text (a lone surrogate or a broken UTF-8 sequence)';

/** What the input stages read of a route: its schemas (a /v1 route or an admin route). */
/**
 * The 1 MB body limit, read as 1 MiB = 1,048,576 bytes (docs/pipeline.md, docs/errors.md). Here,
 * with the body stage, so that the admin pipeline has it without loading /v1's.
 */
export const DEFAULT_BODY_LIMIT_BYTES = 1_048_576;

export type InputSchemas = Pick<AnyRoute, 'params' | 'query' | 'body'>;

export interface ValidInput {
  params: unknown;
  query: unknown;
  body: unknown;
}

/** Reads the JSON body a route takes; a route that takes none refuses one. */
export async function readJsonBody(
  req: ApiRequest,
  route: InputSchemas,
  limitBytes: number,
): Promise<unknown> {
  if (!route.body) {
    if (req.hasBody) throw new ApiError('validation_error', 'This endpoint takes no request body.');
    return undefined;
  }
  if (!req.hasBody) return {};
  const contentType = req.headers['content-type'];
  if (!isJson(contentType)) {
    throw new ApiError(
      'unsupported_media_type',
      'Send the body as JSON with "Content-Type: application/json".',
    );
  }
  let raw: Buffer;
  try {
    raw = await req.readBody(limitBytes);
  } catch (error) {
    if (error instanceof PayloadTooLarge) {
      throw new ApiError('payload_too_large', `The request body is larger than ${limitBytes} bytes.`);
    }
    throw error;
  }
  let text: string;
  try {
    text = strictUtf8.decode(raw);
  } catch {
    throw new ApiError('validation_error', 'The request body is not valid UTF-8.', {
      details: { errors: [{ in: 'body', path: '', message: NOT_UNICODE }] },
    });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError('validation_error', 'The request body is not valid JSON.');
  }
}

function isJson(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const [type = '', ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return parameters.every((p) => !p.startsWith('charset=') || p === 'charset=utf-8');
}

const NO_QUERY = z.object({}).strict();

export function validateInput(
  route: InputSchemas,
  rawParams: Record<string, string>,
  target: Pick<RequestTarget, 'searchParams' | 'malformedQuery'>,
  rawBody: unknown,
): ValidInput {
  const errors: FieldError[] = [];
  const params = check('path', route.params, rawParams, errors);
  for (const name of target.malformedQuery) errors.push({ in: 'query', path: name, message: NOT_UNICODE });
  const query = check('query', route.query ?? NO_QUERY, queryObject(target.searchParams, errors), errors);
  const notUnicode = route.body ? illFormedStrings(rawBody) : [];
  for (const path of notUnicode) errors.push({ in: 'body', path, message: NOT_UNICODE });
  const body = route.body && notUnicode.length === 0 ? check('body', route.body, rawBody, errors) : undefined;
  if (errors.length > 0) {
    const first = errors[0] as FieldError;
    const where = first.path ? `${first.in}.${first.path}` : first.in;
    throw new ApiError('validation_error', `Invalid ${where}: ${first.message}`, { details: { errors } });
  }
  return { params, query, body };
}

interface FieldError {
  in: 'path' | 'query' | 'body';
  path: string;
  message: string;
}

function check(
  location: FieldError['in'],
  schema: z.ZodType | undefined,
  value: unknown,
  errors: FieldError[],
) {
  if (!schema) return value;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) errors.push(...toFieldErrors(location, issue));
  return undefined;
}

function toFieldErrors(location: FieldError['in'], issue: z.core.$ZodIssue): FieldError[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      in: location,
      path: [...issue.path, key].join('.'),
      message: 'unknown field',
    }));
  }
  return [{ in: location, path: issue.path.join('.'), message: issue.message }];
}

/** A query parameter given twice is refused: which one wins would be a guess. */
function queryObject(searchParams: URLSearchParams, errors: FieldError[]): Record<string, string> {
  // No prototype: a parameter named __proto__ is just an unknown parameter.
  const query = Object.create(null) as Record<string, string>;
  for (const [name, value] of searchParams) {
    if (Object.prototype.hasOwnProperty.call(query, name)) {
      errors.push({ in: 'query', path: name, message: 'given more than once' });
    }
    query[name] = value;
  }
  return query;
}

/**
 * Validation results of body-less requests, by route, path and raw query: the schemas are pure
 * functions of that text, so the same text always validates to the same values. Kept frozen
 * (nothing may change a request's input), at most `maxEntries` (cleared when full), and only
 * for texts up to 512 characters; failures are never kept.
 */
export class ValidatedInputs {
  readonly #entries = new Map<string, ValidInput>();

  constructor(readonly maxEntries = 1_024) {}

  validate(
    route: AnyRoute,
    rawParams: Record<string, string>,
    target: RequestTarget,
    rawBody: unknown,
  ): ValidInput {
    if (route.body) return validateInput(route, rawParams, target, rawBody);
    const key = `${route.method} ${route.path} ${target.pathname}?${target.search}`;
    const known = this.#entries.get(key);
    if (known !== undefined) return known;
    const input = validateInput(route, rawParams, target, rawBody);
    if (key.length > 512) return input;
    if (this.#entries.size >= this.maxEntries) this.#entries.clear();
    this.#entries.set(key, deepFreeze(input));
    return input;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
