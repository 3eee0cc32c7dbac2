/**
 * `tsx scripts/option-trail.ts [ROOT] [--trail] [--whole-objects | --derived]`: how far a reader
 * travels following what startDaemon's options do (docs/architecture.md, "The picture");
 * `--trail` lists the files in order. A depth-first walk, with the TypeScript compiler's types,
 * starts in startDaemon with its `options` parameter and follows every call or `new` that is
 * handed an option: the options object, a value read from it (`options.http`,
 * `options.http.maxConnections`, a name bound to one), or an object or array literal holding one.
 * Of an object literal only the fields that held an option count: `{ services, log }` hands on
 * `log`, and the callee's `init.services` is not followed. The walk goes into the callee's
 * declaration (a constructor's body, not its class's methods: a setting stored in a field is the
 * methods' business, reached by whoever calls them) and on from there the same way. What is built
 * from an option (a logger's child, a rate limiter made from a limit) is not followed: it is a
 * service now, and services rightly reach nearly everything. The files it is in, entering and
 * leaving each declaration, are the trail; it prints N, the files the trail passes, and M, the
 * times it comes back to a file it had already left. At commit 0b2ab3e it reads 49 files and 64
 * returns, near the 61 and 66 issue 33 reported there (by a method it did not give).
 *
 * `--whole-objects` takes every field of an object that held an option as one (58 and 79 at
 * 0b2ab3e). `--derived` is the walk this script did first: every value computed from an option,
 * anything built from one included, and a constructor's whole class (111 and 468 at 0b2ab3e); it
 * follows the logger into every module, so it says little about the options.
 *
 * ROOT is a checkout (this one by default), so the figure for another commit is one `git worktree
 * add` away. A measure for review, not a check: nothing fails on it.
 */
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const rootArgument = process.argv.slice(2).find((argument) => !argument.startsWith('--'));
const root = resolve(rootArgument ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
const derived = process.argv.includes('--derived');
const configPath = join(root, 'tsconfig.json');
const parsed = ts.parseJsonConfigFileContent(
  ts.readConfigFile(configPath, ts.sys.readFile).config,
  ts.sys,
  root,
);
const program = ts.createProgram(parsed.fileNames, parsed.options);
const checker = program.getTypeChecker();

/** Declarations already walked with a given set of tainted parameters. */
const walked = new Set<string>();
const trail: string[] = [];

const inProject = (file: ts.SourceFile) =>
  !file.isDeclarationFile && !file.fileName.includes('node_modules') && file.fileName.startsWith(root);

function symbolOf(node: ts.Node): ts.Symbol | undefined {
  if (ts.isShorthandPropertyAssignment(node)) return checker.getShorthandAssignmentValueSymbol(node);
  return checker.getSymbolAtLocation(node);
}

function isTainted(node: ts.Node, tainted: Set<ts.Symbol>): boolean {
  const symbol = symbolOf(node);
  return symbol !== undefined && tainted.has(symbol);
}

/** `--derived`: whether `node` reads a tainted symbol anywhere inside it, in a call's arguments too. */
function mentions(node: ts.Node, tainted: Set<ts.Symbol>): boolean {
  if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node) || ts.isShorthandPropertyAssignment(node)) {
    if (isTainted(node, tainted)) return true;
  }
  return ts.forEachChild(node, (child) => mentions(child, tainted) || undefined) ?? false;
}

const OR_ELSE = new Set([
  ts.SyntaxKind.QuestionQuestionToken,
  ts.SyntaxKind.BarBarToken,
  ts.SyntaxKind.AmpersandAmpersandToken,
]);

/** Whether the value of `node` is an option or holds one, as it is (not a thing built from one). */
function carries(node: ts.Node, tainted: Set<ts.Symbol>): boolean {
  if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node) || ts.isShorthandPropertyAssignment(node)) {
    return isTainted(node, tainted) || fieldsOf(node) !== undefined;
  }
  if (ts.isPropertyAccessExpression(node)) {
    // `init.log` of an object literal that held the logger beside services: only the fields that held an option.
    const fields =
      ts.isIdentifier(node.expression) && !isTainted(node.expression, tainted)
        ? fieldsOf(node.expression)
        : undefined;
    if (fields) return fields.has(node.name.text);
    // `options.http`, or a field an option was stored in (`this.#limits`).
    return carries(node.expression, tainted) || carries(node.name, tainted);
  }
  if (ts.isElementAccessExpression(node) || ts.isSpreadElement(node) || ts.isSpreadAssignment(node)) {
    return carries(node.expression, tainted);
  }
  if (ts.isParenthesizedExpression(node) || ts.isNonNullExpression(node))
    return carries(node.expression, tainted);
  if (ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) return carries(node.expression, tainted);
  if (ts.isObjectLiteralExpression(node)) {
    return node.properties.some((property) =>
      ts.isPropertyAssignment(property) ? carries(property.initializer, tainted) : carries(property, tainted),
    );
  }
  if (ts.isArrayLiteralExpression(node)) return node.elements.some((element) => carries(element, tainted));
  if (ts.isConditionalExpression(node))
    return carries(node.whenTrue, tainted) || carries(node.whenFalse, tainted);
  if (ts.isBinaryExpression(node) && OR_ELSE.has(node.operatorToken.kind)) {
    return carries(node.left, tainted) || carries(node.right, tainted);
  }
  return false;
}

const handsOn = derived ? mentions : carries;

const precise = !process.argv.includes('--whole-objects');
/** Parameters and names bound from an object literal: the fields of it that held an option. */
const partial = new Map<ts.Symbol, Set<string>>();
function fieldsOf(node: ts.Node): Set<string> | undefined {
  const symbol = symbolOf(node);
  return symbol && partial.get(symbol);
}

/** The fields of an object literal that hold an option; null when it is not one (or spreads a whole option). */
function literalFields(node: ts.Expression, tainted: Set<ts.Symbol>): Set<string> | null {
  if (derived || !ts.isObjectLiteralExpression(node)) return null;
  const fields = new Set<string>();
  for (const property of node.properties) {
    if (ts.isSpreadAssignment(property)) {
      const spreadFields = fieldsOf(property.expression);
      if (spreadFields) for (const field of spreadFields) fields.add(field);
      else if (carries(property.expression, tainted)) return null;
      continue;
    }
    const name =
      property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))
        ? property.name.text
        : null;
    if (name !== null && carries(property, tainted)) fields.add(name);
    else if (name !== null && ts.isPropertyAssignment(property) && carries(property.initializer, tainted))
      fields.add(name);
  }
  return fields;
}

/** The fields of `value` that hold an option, when it is an object literal or a name bound from one. */
function fieldsIn(value: ts.Expression, tainted: Set<ts.Symbol>): Set<string> | undefined {
  const literal = literalFields(value, tainted);
  if (literal) return literal;
  return ts.isIdentifier(value) && !isTainted(value, tainted) ? fieldsOf(value) : undefined;
}

/** Binds `name` (into `tainted`) from a value whose option-holding fields are `fields`, or whole. */
function bindFrom(name: ts.BindingName, fields: Set<string> | undefined, tainted: Set<ts.Symbol>): void {
  if (!fields) return bindNames(name, tainted);
  if (ts.isIdentifier(name)) {
    const symbol = checker.getSymbolAtLocation(name);
    if (symbol) partial.set(symbol, new Set([...(partial.get(symbol) ?? []), ...fields]));
    return;
  }
  if (!ts.isObjectBindingPattern(name)) return bindNames(name, tainted);
  for (const element of name.elements) {
    const key = element.propertyName ?? element.name;
    if (element.dotDotDotToken || (ts.isIdentifier(key) && fields.has(key.text)))
      bindNames(element.name, tainted);
  }
}

function visit(file: ts.SourceFile) {
  if (trail.at(-1) !== file.fileName) trail.push(file.fileName);
}

/** Taints what a declaration or assignment binds from a tainted value. */
function spread(node: ts.Node, tainted: Set<ts.Symbol>): void {
  if (ts.isVariableDeclaration(node) && node.initializer && handsOn(node.initializer, tainted)) {
    bindFrom(node.name, precise ? fieldsIn(node.initializer, tainted) : undefined, tainted);
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
    if (handsOn(node.right, tainted)) {
      const symbol = symbolOf(ts.isPropertyAccessExpression(node.left) ? node.left.name : node.left);
      if (symbol) tainted.add(symbol);
    }
  }
}

function bindNames(name: ts.BindingName, tainted: Set<ts.Symbol>): void {
  if (ts.isIdentifier(name)) {
    const symbol = checker.getSymbolAtLocation(name);
    if (symbol) tainted.add(symbol);
    return;
  }
  for (const element of name.elements) if (!ts.isOmittedExpression(element)) bindNames(element.name, tainted);
}

/** The callee's declaration in this project, and which of its parameters receive the options. */
function callee(call: ts.CallExpression | ts.NewExpression, tainted: Set<ts.Symbol>) {
  const declaration = checker.getResolvedSignature(call)?.declaration;
  if (!declaration || ts.isJSDocSignature(declaration) || !('parameters' in declaration)) return null;
  if (!inProject(declaration.getSourceFile())) return null;
  const hot = (call.arguments ?? []).flatMap((argument, index) =>
    handsOn(argument, tainted) ? [index] : [],
  );
  return hot.length === 0 ? null : { declaration, hot, args: call.arguments ?? [], tainted };
}

function walkBody(node: ts.Node, file: ts.SourceFile, tainted: Set<ts.Symbol>): void {
  spread(node, tainted);
  if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
    const target = callee(node, tainted);
    if (target) {
      follow(target.declaration, target.hot, target.args, target.tainted);
      visit(file);
    }
  }
  ts.forEachChild(node, (child) => walkBody(child, file, tainted));
}

function follow(
  declaration: ts.SignatureDeclaration,
  hot: number[],
  args: readonly ts.Expression[] = [],
  callerTainted = new Set<ts.Symbol>(),
): void {
  const file = declaration.getSourceFile();
  const key = `${file.fileName}:${declaration.pos}:${hot.join(',')}`;
  if (walked.has(key)) return;
  walked.add(key);
  visit(file);
  const tainted = new Set<ts.Symbol>();
  for (const index of hot) {
    const parameter = declaration.parameters[Math.min(index, declaration.parameters.length - 1)];
    if (!parameter) continue;
    const argument = args[index];
    bindFrom(parameter.name, argument && precise ? fieldsIn(argument, callerTainted) : undefined, tainted);
  }
  // --derived: a constructor keeps what it is given in fields its methods read; the class is read whole.
  const scope = derived && ts.isConstructorDeclaration(declaration) ? declaration.parent : declaration;
  walkBody(scope, file, tainted);
}

const daemonFile = program.getSourceFile(join(root, 'daemon', 'daemon.ts'));
const start = daemonFile?.statements.find(
  (statement): statement is ts.FunctionDeclaration =>
    ts.isFunctionDeclaration(statement) && statement.name?.text === 'startDaemon',
);
if (!start) throw new Error(`no startDaemon in ${root}/daemon/daemon.ts`);
follow(start, [0]);

const seen = new Set<string>();
let returns = 0;
for (const file of trail) {
  if (seen.has(file)) returns += 1;
  seen.add(file);
}
if (process.argv.includes('--trail')) for (const file of trail) console.log(relative(root, file));
console.log(
  `following startDaemon's options passes ${seen.size} files, returning ${returns} times to a file already left`,
);
