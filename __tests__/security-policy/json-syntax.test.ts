import { jsonSyntaxProblem } from '../../src/json-syntax';

describe('jsonSyntaxProblem', () => {
  test.each([
    ['an array of objects', '[{"ip": "203.0.113.9", "description": "a \\"quoted\\" \\u00e9 word"}, {"n": -1.5e3, "b": [true, false, null]}]'],
    ['an object with white space', ' \t\r\n{ "entries" : [ ] }\n'],
    ['an empty object', '{}'],
  ])('accepts %s (as JSON.parse does)', (_name, text) => {
    expect(() => JSON.parse(text)).not.toThrow();
    expect(jsonSyntaxProblem(text)).toBeUndefined();
  });

  test.each([
    ['a trailing comma in an array', '[1,\n2,\n]', 7, "expected a value, found ']' (a trailing comma?)"],
    ['a trailing comma in an object', '{"a": 1,\n}', 9, "expected a property name in double quotes, found \"}\" (a trailing comma?)"],
    ['a comment', '[\n// blocked\n1]', 2, 'expected a value, found a comment (JSON has none; use a .yaml file for comments)'],
    ['a missing colon', '{"ip" "1"}', 6, "expected ':' after the property name, found \"\\\"1\\\"}\""],
    ['a missing comma', '[{"ip": "1"} {"ip": "2"}]', 13, "expected ',' or ']', found \"{\\\"ip\\\": \\\"2\\\"}]\""],
    ['an unclosed string', '[{"ip": "1.2.3.4}]', 8, 'a string that is never closed'],
    ['a line break in a string', '["a\nb"]', 3, 'a line break or control character inside a string; close the string or escape it (\\n)'],
    ['single quotes', "[{'ip': 1}]", 2, 'expected a property name in double quotes, found "\'ip\': 1}]"'],
    ['a bad escape', '["\\x41"]', 2, 'unknown escape \\x in a string'],
    ['text after the document', '[] []', 3, 'unexpected "[]" after the end of the document'],
    ['an empty file', '', 0, 'expected a value, found the end of the file'],
    ['a bare word', '[yes]', 1, 'expected a value, found "yes]"'],
  ])('finds %s', (_name, text, offset, message) => {
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect(jsonSyntaxProblem(text)).toEqual({ offset, message });
  });
});
