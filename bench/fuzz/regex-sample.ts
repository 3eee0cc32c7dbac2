/**
 * A string that matches a regular expression, drawn from a seeded generator: enough of the syntax
 * for the patterns the route table declares (literals, escapes, classes, groups, alternation,
 * quantifiers). Unknown syntax is taken literally; the answer is then a 400, which is fine here.
 */
import type { Rng } from '../../mod-sim/world/rng.ts';

type Node =
  | { kind: 'chars'; set: string }
  | { kind: 'group'; alternatives: Node[][] }
  | { kind: 'repeat'; node: Node; min: number; max: number };

const DIGITS = '0123456789';
const WORD = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_';
/** The most an open quantifier (`*`, `+`, `{n,}`) repeats. */
const OPEN_MAX = 8;

export function sampleRegex(pattern: string, rng: Rng): string {
  const parser = { text: pattern.replace(/^\^/, '').replace(/\$$/, ''), at: 0 };
  const sequence = parseAlternatives(parser);
  return render({ kind: 'group', alternatives: sequence }, rng);
}

function render(node: Node, rng: Rng): string {
  if (node.kind === 'chars')
    return node.set.length === 0 ? '' : (node.set[rng.int(0, node.set.length - 1)] ?? '');
  if (node.kind === 'repeat') {
    let out = '';
    for (let i = rng.int(node.min, node.max); i > 0; i--) out += render(node.node, rng);
    return out;
  }
  return rng
    .pick(node.alternatives)
    .map((part) => render(part, rng))
    .join('');
}

interface Parser {
  text: string;
  at: number;
}

function parseAlternatives(p: Parser): Node[][] {
  const alternatives: Node[][] = [[]];
  while (p.at < p.text.length) {
    const char = p.text[p.at] as string;
    if (char === ')') break;
    p.at++;
    if (char === '|') {
      alternatives.push([]);
      continue;
    }
    let node: Node;
    if (char === '(') {
      if (p.text.startsWith('?:', p.at)) p.at += 2;
      node = { kind: 'group', alternatives: parseAlternatives(p) };
      p.at++; // ')'
    } else if (char === '[') node = { kind: 'chars', set: parseClass(p) };
    else if (char === '\\') node = { kind: 'chars', set: parseEscape(p) };
    else if (char === '.') node = { kind: 'chars', set: WORD };
    else node = { kind: 'chars', set: char };
    (alternatives[alternatives.length - 1] as Node[]).push(quantified(p, node));
  }
  return alternatives;
}

function quantified(p: Parser, node: Node): Node {
  const char = p.text[p.at];
  if (char === '?') return (p.at++, { kind: 'repeat', node, min: 0, max: 1 });
  if (char === '*') return (p.at++, { kind: 'repeat', node, min: 0, max: OPEN_MAX });
  if (char === '+') return (p.at++, { kind: 'repeat', node, min: 1, max: OPEN_MAX });
  const braces = /^\{(\d+)(,(\d*))?\}/.exec(p.text.slice(p.at));
  if (!braces) return node;
  p.at += braces[0].length;
  const min = Number(braces[1]);
  const max = braces[2] === undefined ? min : braces[3] === '' ? min + OPEN_MAX : Number(braces[3]);
  return { kind: 'repeat', node, min, max };
}

function parseEscape(p: Parser): string {
  const char = p.text[p.at++] ?? '';
  if (char === 'd') return DIGITS;
  if (char === 'w') return WORD;
  if (char === 's') return ' ';
  if (char === 'x') {
    const code = parseInt(p.text.slice(p.at, p.at + 2), 16);
    p.at += 2;
    return String.fromCharCode(code);
  }
  return char;
}

function parseClass(p: Parser): string {
  let set = '';
  while (p.at < p.text.length && p.text[p.at] !== ']') {
    let from = p.text[p.at++] as string;
    if (from === '\\') {
      const escaped = parseEscape(p);
      if (escaped.length > 1) {
        set += escaped;
        continue;
      }
      from = escaped;
    }
    if (p.text[p.at] === '-' && p.text[p.at + 1] !== ']' && p.at + 1 < p.text.length) {
      p.at++;
      let to = p.text[p.at++] as string;
      if (to === '\\') to = parseEscape(p);
      for (let code = from.charCodeAt(0); code <= to.charCodeAt(0); code++) set += String.fromCharCode(code);
    } else set += from;
  }
  p.at++; // ']'
  return set;
}
