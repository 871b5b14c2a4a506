/**
 * What an editor shows a user of SecurityPolicy: every exported props interface, construct class
 * and their public members carry a doc comment (hover text, completion details).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const MODULE_DIRECTORY = path.join(__dirname, '..', '..', 'modules', 'security-policy');
/** The files users import from: props, constructs, the config section. */
const USER_FACING_FILES = ['props.ts', 'security-policy.ts', 'control-plane-egress.ts', 'saml-outputs.ts', 'config.ts'];

function isExported(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
}

function isPublicMember(member: ts.ClassElement | ts.TypeElement): boolean {
  if (ts.isConstructorDeclaration(member) || member.name === undefined) return false;
  const modifiers = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
  return !modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.PrivateKeyword || modifier.kind === ts.SyntaxKind.ProtectedKeyword);
}

/** `file: Owner` or `file: Owner.member` for each exported interface, class or public member without a doc comment. */
function undocumented(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(path.join(MODULE_DIRECTORY, file), 'utf8'), ts.ScriptTarget.ES2022, true);
  const missing: string[] = [];
  for (const statement of source.statements) {
    if (!(ts.isInterfaceDeclaration(statement) || ts.isClassDeclaration(statement)) || !isExported(statement) || statement.name === undefined) continue;
    const owner = statement.name.text;
    if (ts.getJSDocCommentsAndTags(statement).length === 0) missing.push(`${file}: ${owner}`);
    const members: ReadonlyArray<ts.ClassElement | ts.TypeElement> = statement.members;
    for (const member of members) {
      if (isPublicMember(member) && ts.getJSDocCommentsAndTags(member).length === 0) missing.push(`${file}: ${owner}.${member.name!.getText(source)}`);
    }
  }
  return missing;
}

test.each(USER_FACING_FILES)('%s: every exported interface, class and public member has a doc comment', (file) => {
  expect(undocumented(file)).toEqual([]);
});
