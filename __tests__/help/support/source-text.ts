/**
 * The text a user can meet from the code: string literals, template literal parts and
 * `process.env.X` names of the TypeScript files under given directories, read with the
 * TypeScript parser (comments are not messages).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { repositoryRoot } from './markdown';

export interface SourceStrings {
  readonly file: string;
  /** Every string and template literal, templates with `${...}` kept as written in the source. */
  readonly literals: readonly string[];
  /** Names read as `process.env.NAME` / `env.NAME`. */
  readonly envProperties: readonly string[];
}

function typeScriptFiles(relative: string): string[] {
  const absolute = path.join(repositoryRoot, relative);
  if (!fs.existsSync(absolute)) return [];
  // Plain JavaScript too (scripts that run before node_modules exists): the parser reads both.
  if (fs.statSync(absolute).isFile()) return /\.(ts|js)$/.test(absolute) ? [absolute] : [];
  return fs
    .readdirSync(absolute, { withFileTypes: true })
    .flatMap((entry) => typeScriptFiles(path.join(relative, entry.name)))
    .sort();
}

export function sourceStrings(relativePaths: readonly string[]): SourceStrings[] {
  return relativePaths.flatMap(typeScriptFiles).map((file) => {
    const text = fs.readFileSync(file, 'utf8');
    const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
    const literals: string[] = [];
    const envProperties: string[] = [];
    /** A literal, a template as written, or a `+` chain of them (a message split over lines), as one text. */
    const literalText = (node: ts.Node): string | undefined => {
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
      if (ts.isTemplateExpression(node)) return text.slice(node.getStart(sourceFile) + 1, node.getEnd() - 1);
      if (ts.isParenthesizedExpression(node)) return literalText(node.expression);
      if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
        const left = literalText(node.left);
        const right = literalText(node.right);
        // A non-literal operand (a variable) stands in as an interpolation.
        if (left !== undefined || right !== undefined) return `${left ?? '${...}'}${right ?? '${...}'}`;
      }
      return undefined;
    };
    const visit = (node: ts.Node): void => {
      if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken && !(ts.isBinaryExpression(node.parent) && node.parent.operatorToken.kind === ts.SyntaxKind.PlusToken)) {
        const chain = literalText(node);
        if (chain !== undefined) literals.push(chain);
      }
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
        literals.push(node.text);
      } else if (ts.isTemplateExpression(node)) {
        // The template as written, `${...}` and all, so a message with placeholders can be matched.
        literals.push(text.slice(node.getStart(sourceFile) + 1, node.getEnd() - 1));
      } else if (ts.isPropertyAccessExpression(node) && /(^|\.)env$/.test(node.expression.getText(sourceFile))) {
        envProperties.push(node.name.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(sourceFile);
    return { file: path.relative(repositoryRoot, file), literals, envProperties };
  });
}
