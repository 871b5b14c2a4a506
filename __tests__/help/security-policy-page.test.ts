/**
 * help/security-policy.md documents the construct's props and public methods: its tables name
 * exactly the members of SecurityPolicyProps, PolicyListProps and SsoSettings
 * (modules/security-policy/props.ts) and the public methods of SecurityPolicy, read from the
 * source with the TypeScript parser. A prop added or renamed without the page fails here.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { codeSpans, readPage, repositoryRoot, section, tableRows } from './support/markdown';

const markdown = readPage('security-policy.md');

function sourceFile(relative: string): ts.SourceFile {
  const file = path.join(repositoryRoot, relative);
  return ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
}

function interfaceMembers(relative: string, name: string): string[] {
  const found = sourceFile(relative).statements.find((statement): statement is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(statement) && statement.name.text === name);
  if (found === undefined) throw new Error(`${relative} has no interface ${name}`);
  return found.members.map((member) => member.name?.getText() ?? '').filter(Boolean);
}

function publicMethods(relative: string, className: string): string[] {
  const found = sourceFile(relative).statements.find((statement): statement is ts.ClassDeclaration => ts.isClassDeclaration(statement) && statement.name?.text === className);
  if (found === undefined) throw new Error(`${relative} has no class ${className}`);
  return found.members
    .filter(ts.isMethodDeclaration)
    .filter((method) => !(ts.getCombinedModifierFlags(method) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)))
    .map((method) => method.name.getText());
}

/** The names in the first cells of the table right under a heading (a cell may name several: `a`, `b`). */
function documentedNames(heading: string): string[] {
  const own = section(markdown, heading).split(/^#/m)[0]!;
  return tableRows(own).flatMap((cells) => codeSpans(cells[0] ?? '').map((span) => span.replace(/\(.*$/, '')));
}

const PROPS = 'modules/security-policy/props.ts';

describe('help/security-policy.md names exactly the construct\'s props and methods', () => {
  test.each([
    ['Props', 'SecurityPolicyProps'],
    ['PolicyListProps', 'PolicyListProps'],
    ['SsoSettings', 'SsoSettings'],
  ])('the "%s" table names the members of %s', (heading, interfaceName) => {
    expect(documentedNames(heading).sort()).toEqual(interfaceMembers(PROPS, interfaceName).sort());
  });

  test('the "Methods" table names the public methods of SecurityPolicy', () => {
    expect(documentedNames('Methods').sort()).toEqual(publicMethods('modules/security-policy/security-policy.ts', 'SecurityPolicy').sort());
  });
});
