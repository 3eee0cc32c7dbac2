/**
 * `tsx scripts/option-trail.ts [ROOT] [--trail]`: how far a reader travels following startDaemon's
 * options (docs/architecture.md, "The pipeline and start-up"); `--trail` lists the files in order. A depth-first walk, with the TypeScript
 * compiler's types, starts in startDaemon with its `options` parameter and follows every call or
 * `new` whose arguments mention the options or a value read from them into the callee's
 * declaration (a constructor's whole class), and on from there the same way; the files it is in,
 * entering and leaving each declaration, are the trail. It prints N, the files the trail passes,
 * and M, the times it comes back to a file it had already left.
 *
 * ROOT is a checkout (this one by default), so the figure for another commit is one `git worktree
 * add` away. A measure for review, not a check: nothing fails on it.
 */
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const rootArgument = process.argv.slice(2).find((argument) => !argument.startsWith('--'));
const root = resolve(rootArgument ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
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

/** Whether `node` reads a tainted symbol anywhere inside it. */
function mentions(node: ts.Node, tainted: Set<ts.Symbol>): boolean {
  if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node) || ts.isShorthandPropertyAssignment(node)) {
    const symbol = symbolOf(node);
    if (symbol && tainted.has(symbol)) return true;
  }
  return ts.forEachChild(node, (child) => mentions(child, tainted) || undefined) ?? false;
}

function visit(file: ts.SourceFile) {
  if (trail.at(-1) !== file.fileName) trail.push(file.fileName);
}

/** Taints what a declaration or assignment binds from a tainted value. */
function spread(node: ts.Node, tainted: Set<ts.Symbol>): void {
  if (ts.isVariableDeclaration(node) && node.initializer && mentions(node.initializer, tainted)) {
    bindNames(node.name, tainted);
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
    if (mentions(node.right, tainted)) {
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
    mentions(argument, tainted) ? [index] : [],
  );
  return hot.length === 0 ? null : { declaration, hot };
}

function walkBody(node: ts.Node, file: ts.SourceFile, tainted: Set<ts.Symbol>): void {
  spread(node, tainted);
  if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
    const target = callee(node, tainted);
    if (target) {
      follow(target.declaration, target.hot);
      visit(file);
    }
  }
  ts.forEachChild(node, (child) => walkBody(child, file, tainted));
}

function follow(declaration: ts.SignatureDeclaration, hot: number[]): void {
  const file = declaration.getSourceFile();
  const key = `${file.fileName}:${declaration.pos}:${hot.join(',')}`;
  if (walked.has(key)) return;
  walked.add(key);
  visit(file);
  const tainted = new Set<ts.Symbol>();
  for (const index of hot) {
    const parameter = declaration.parameters[Math.min(index, declaration.parameters.length - 1)];
    if (parameter) bindNames(parameter.name, tainted);
  }
  // A constructor keeps what it is given in fields its methods read: the class is read whole.
  const scope = ts.isConstructorDeclaration(declaration) ? declaration.parent : declaration;
  if (ts.isConstructorDeclaration(declaration) && declaration.body) walkBody(declaration.body, file, tainted);
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
