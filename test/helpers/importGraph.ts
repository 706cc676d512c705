/**
 * The import graph of the project's own modules, resolved as the compiler resolves them (TypeScript's
 * module resolution with each folder's tsconfig.json), and the circles in it.
 *
 * Every way one module names another counts: `import` and `import type`, `export ... from`,
 * `import x = require(...)`, `import('...')` (a call or a type). A type-only circle costs nothing at
 * run time, but it ties the two modules together all the same: neither can be read, moved or tested
 * without the other.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
  from: string;
  to: string;
  /** The specifier as written. */
  specifier: string;
  line: number;
}

export interface ImportGraph {
  files: string[];
  edges: ImportEdge[];
}

/** A compiler setup: the options of the tsconfig.json that applies to the files under `folder`. */
export interface ResolutionScope {
  folder: string;
  tsconfig: string;
}

const SOURCE = /\.(ts|tsx|mts|cts)$/;

function sourceFiles(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(full));
    else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) found.push(full);
  }
  return found;
}

function compilerOptionsOf(tsconfig: string): ts.CompilerOptions {
  const parsed = ts.getParsedCommandLineOfConfigFile(tsconfig, {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(`${tsconfig}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
    },
  });
  if (!parsed) throw new Error(`${tsconfig}: could not be read`);
  return parsed.options;
}

/** Every module specifier in a file, with its line. */
export function specifiersOf(file: string, text: string): Array<{ specifier: string; line: number }> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: Array<{ specifier: string; line: number }> = [];
  const add = (node: ts.Node | undefined) => {
    if (node && ts.isStringLiteralLike(node)) found.push({ specifier: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) add(node.moduleReference.expression);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The graph of the source files under `roots` (absolute folders): an edge for each specifier that
 * resolves to one of those files. Packages and files outside the roots are left out. `scopes` gives
 * the tsconfig.json of folders that resolve differently (the renderer's bundler resolution); other
 * files use `tsconfig`.
 */
export function importGraph(roots: readonly string[], tsconfig: string, scopes: readonly ResolutionScope[] = []): ImportGraph {
  const files = roots.flatMap(sourceFiles).map((f) => path.resolve(f)).sort();
  const known = new Set(files);
  const withCache = (options: ts.CompilerOptions) => ({ options, cache: ts.createModuleResolutionCache(ts.sys.getCurrentDirectory(), (name) => name, options) });
  const defaults = withCache(compilerOptionsOf(tsconfig));
  const scoped = scopes.map((scope) => ({ folder: path.resolve(scope.folder) + path.sep, ...withCache(compilerOptionsOf(scope.tsconfig)) }));
  const edges: ImportEdge[] = [];
  for (const from of files) {
    const { options, cache } = scoped.find((scope) => from.startsWith(scope.folder)) ?? defaults;
    for (const { specifier, line } of specifiersOf(from, ts.sys.readFile(from) ?? '')) {
      const resolved = ts.resolveModuleName(specifier, from, options, ts.sys, cache).resolvedModule;
      const to = resolved && path.resolve(resolved.resolvedFileName);
      if (to && known.has(to)) edges.push({ from, to, specifier, line });
    }
  }
  return { files, edges };
}

/**
 * The circles of a graph: each group of files that reach one another through imports (a strongly
 * connected component of more than one file, or a file that imports itself), with the shortest circle
 * through its first file as a path `a -> b -> ... -> a`.
 */
export function importCircles(graph: ImportGraph): Array<{ files: string[]; path: string[] }> {
  const next = new Map<string, string[]>(graph.files.map((f) => [f, []]));
  for (const edge of graph.edges) {
    const targets = next.get(edge.from)!;
    if (!targets.includes(edge.to)) targets.push(edge.to);
  }
  for (const targets of next.values()) targets.sort();

  // Tarjan's strongly connected components, iterative (a long chain of imports must not overflow the stack).
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const start of graph.files) {
    if (index.has(start)) continue;
    const work: Array<{ file: string; at: number }> = [{ file: start, at: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const targets = next.get(frame.file)!;
      if (frame.at < targets.length) {
        const to = targets[frame.at++]!;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ file: to, at: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.file, Math.min(low.get(frame.file)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.file, Math.min(low.get(parent.file)!, low.get(frame.file)!));
      if (low.get(frame.file) === index.get(frame.file)) {
        const component: string[] = [];
        let file: string;
        do {
          file = stack.pop()!;
          onStack.delete(file);
          component.push(file);
        } while (file !== frame.file);
        if (component.length > 1 || next.get(file)!.includes(file)) components.push(component.sort());
      }
    }
  }
  return components.sort((a, b) => (a[0]! < b[0]! ? -1 : 1)).map((files) => ({ files, path: circleThrough(files, next) }));
}

/** A circle from the first file of a component back to it, by the shortest path (breadth first) inside it. */
function circleThrough(files: string[], next: Map<string, string[]>): string[] {
  const inside = new Set(files);
  const start = files[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const file = queue[i]!;
    for (const to of next.get(file)!) {
      if (!inside.has(to)) continue;
      if (to === start) {
        const circle = [start];
        for (let at: string | undefined = file; at !== undefined && at !== start; at = cameFrom.get(at)) circle.splice(1, 0, at);
        return [...circle, start];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, file);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

/** Circles that are known and left for later: the files of each, and why. */
export interface AllowedCircle {
  files: string[];
  why: string;
}

/**
 * What is wrong with the circles of `graph`, one line each, paths relative to `base`: a circle that no
 * allowed group holds whole, and an allowed group that no circle needs any more (so that the list
 * only ever shrinks).
 */
export function circleProblems(graph: ImportGraph, base: string, allowed: readonly AllowedCircle[] = []): string[] {
  const relative = (file: string) => path.relative(base, file).split(path.sep).join('/');
  const problems: string[] = [];
  const used = new Set<AllowedCircle>();
  for (const circle of importCircles(graph)) {
    const files = circle.files.map(relative);
    const group = allowed.find((entry) => files.every((file) => entry.files.includes(file)));
    if (group) used.add(group);
    else {
      const through = circle.path.map(relative);
      const others = files.filter((file) => !through.includes(file));
      problems.push(`import circle: ${through.join(' -> ')}${others.length > 0 ? ` (and through ${others.join(', ')})` : ''}`);
    }
  }
  for (const entry of allowed) if (!used.has(entry)) problems.push(`no circle runs through ${entry.files.join(', ')} any more: take it off the allowed circles`);
  return problems;
}
