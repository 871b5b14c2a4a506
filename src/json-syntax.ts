/**
 * Where a JSON text first breaks the JSON grammar (RFC 8259), as an offset and a short reason.
 * JSON.parse says whether a text is JSON, but V8's message does not always give a position
 * ("Unexpected token ']', ..."), and a security team fixing an entry file needs the line. The
 * yaml parser, which gives lines, accepts what JSON refuses (trailing commas, comments).
 */
export interface JsonSyntaxProblem {
  readonly offset: number;
  readonly message: string;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS = ['true', 'false', 'null'];

class JsonSyntaxScanner {
  private offset = 0;
  constructor(private readonly text: string) {}

  check(): JsonSyntaxProblem | undefined {
    try {
      this.skipSpace();
      this.value();
      this.skipSpace();
      if (this.offset < this.text.length) this.fail(`unexpected ${this.describe()} after the end of the document`);
      return undefined;
    } catch (error) {
      if (error instanceof JsonSyntaxFailure) return error.problem;
      throw error;
    }
  }

  private value(): void {
    const character = this.text[this.offset];
    if (character === '{') return this.object();
    if (character === '[') return this.array();
    if (character === '"') return this.string();
    NUMBER.lastIndex = this.offset;
    const number = NUMBER.exec(this.text);
    if (number !== null && number[0] !== '' && number[0] !== '-') {
      this.offset += number[0].length;
      return;
    }
    for (const literal of LITERALS) {
      if (this.text.startsWith(literal, this.offset)) {
        this.offset += literal.length;
        return;
      }
    }
    this.fail(`expected a value, found ${this.describe()}`);
  }

  private object(): void {
    this.offset += 1;
    this.skipSpace();
    if (this.text[this.offset] === '}') {
      this.offset += 1;
      return;
    }
    for (;;) {
      if (this.text[this.offset] !== '"') this.fail(`expected a property name in double quotes, found ${this.describe()}${this.text[this.offset] === '}' ? ' (a trailing comma?)' : ''}`);
      this.string();
      this.skipSpace();
      if (this.text[this.offset] !== ':') this.fail(`expected ':' after the property name, found ${this.describe()}`);
      this.offset += 1;
      this.skipSpace();
      this.value();
      this.skipSpace();
      const next = this.text[this.offset];
      if (next === '}') {
        this.offset += 1;
        return;
      }
      if (next !== ',') this.fail(`expected ',' or '}', found ${this.describe()}`);
      this.offset += 1;
      this.skipSpace();
    }
  }

  private array(): void {
    this.offset += 1;
    this.skipSpace();
    if (this.text[this.offset] === ']') {
      this.offset += 1;
      return;
    }
    for (;;) {
      if (this.text[this.offset] === ']') this.fail("expected a value, found ']' (a trailing comma?)");
      this.value();
      this.skipSpace();
      const next = this.text[this.offset];
      if (next === ']') {
        this.offset += 1;
        return;
      }
      if (next !== ',') this.fail(`expected ',' or ']', found ${this.describe()}`);
      this.offset += 1;
      this.skipSpace();
    }
  }

  private string(): void {
    const start = this.offset;
    this.offset += 1;
    while (this.offset < this.text.length) {
      const character = this.text[this.offset];
      if (character === '"') {
        this.offset += 1;
        return;
      }
      if (character.charCodeAt(0) < 0x20) this.fail('a line break or control character inside a string; close the string or escape it (\\n)');
      if (character === '\\') {
        const escape = this.text[this.offset + 1];
        if (escape === 'u') {
          if (!/^[0-9A-Fa-f]{4}$/.test(this.text.slice(this.offset + 2, this.offset + 6))) this.fail('\\u needs four hex digits');
          this.offset += 6;
          continue;
        }
        if (escape === undefined || !'"\\/bfnrt'.includes(escape)) this.fail(`unknown escape \\${escape ?? ''} in a string`);
        this.offset += 2;
        continue;
      }
      this.offset += 1;
    }
    this.offset = start;
    this.fail('a string that is never closed');
  }

  private skipSpace(): void {
    while (this.offset < this.text.length && ' \t\n\r'.includes(this.text[this.offset])) this.offset += 1;
  }

  private describe(): string {
    if (this.offset >= this.text.length) return 'the end of the file';
    const rest = this.text.slice(this.offset);
    if (rest.startsWith('//') || rest.startsWith('/*')) return 'a comment (JSON has none; use a .yaml file for comments)';
    return JSON.stringify(rest.slice(0, 12).split('\n')[0]);
  }

  private fail(message: string): never {
    throw new JsonSyntaxFailure({ offset: this.offset, message });
  }
}

class JsonSyntaxFailure extends Error {
  constructor(readonly problem: JsonSyntaxProblem) {
    super(problem.message);
  }
}

/** The first JSON syntax problem of `text`, or undefined when it is JSON. */
export function jsonSyntaxProblem(text: string): JsonSyntaxProblem | undefined {
  return new JsonSyntaxScanner(text).check();
}
