#!/usr/bin/env python3
"""Records CPython's outputs for every function of `@eval/core/python` into
packages/core/src/python/cpython-cases.json (read by packages/core/src/python/cpython.test.ts).

Run from the repository root with the CPython the fixture should describe (today 3.11):

    python3 scripts/record-cpython.py        # or: pnpm record:cpython

Deterministic, standard library only. Floats are written as their repr (a string, so nan/inf/-0.0 survive JSON),
ints that may exceed 2**53 as decimal strings, errors as {"error": "<ExceptionType>", "message": ...}.
"""
import ast
import json
import os
import platform
import re
import random
import statistics
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'packages', 'core', 'src', 'python', 'cpython-cases.json')


def error_of(fn):
    try:
        return {'value': fn()}
    except Exception as e:  # noqa: BLE001 - the exception type is the recorded result
        msg = str(e) if not isinstance(e, KeyError) else 'KeyError: ' + str(e)
        msg = re.sub(r' at 0x[0-9a-f]+', '', msg)  # object addresses vary between runs
        return {'error': type(e).__name__, 'message': msg}


def ranges(pred):
    """Code points where pred(chr(c)) holds, as [first, last] runs."""
    out = []
    for c in range(0x110000):
        if 0xD800 <= c <= 0xDFFF:
            continue
        if pred(chr(c)):
            if out and out[-1][1] == c - 1:
                out[-1][1] = c
            else:
                out.append([c, c])
    return out


FLOATS = [
    'nan', 'inf', '-inf', '0.0', '-0.0', '1.0', '-2.5', '0.1', '0.30000000000000004', '0.3333333333333333',
    '1e-05', '0.0001', '0.00012345', '1.5e-07', '1e+16', '9999999999999998.0', '1000000000000000.0',
    '1.2345678901234567e+16', '123456789012345.67', '1e+22', '5e-324', '1.7976931348623157e+308', '2.2250738585072014e-308',
    '0.503672627787518', '110.25', '100.0', '1e+100',
]

ROUND = [
    ['2.675', 2], ['-2.675', 2], ['1.005', 2], ['0.5', 0], ['1.5', 0], ['2.5', 0], ['-0.5', 0], ['-1.5', 0],
    ['0.125', 2], ['0.375', 2], ['0.0625', 3], ['0.4375', 3], ['1234.5', -1], ['1250.0', -2], ['1350.0', -2],
    ['0.3333333333333333', 4], ['66.66666666666667', 2], ['1e+300', 2], ['5e-324', 0], ['123.456', 10], ['-0.0', 1],
    ['0.285', 2], ['0.615', 2], ['2.5e-05', 5], ['99.995', 2],
]

MEANS = [
    ['0.1', '0.2', '0.3'], ['1e+16', '1.0', '-1e+16'], ['0.1'] * 10, ['1.0', '2.0', '3.0', '4.0'], ['0.5'],
    ['0.6666666666666666', '0.3333333333333333', '0.5', '0.25'], ['1e+308', '1e+308', '-1e+308'], ['-0.0', '-0.0'],
]

STRINGS = [
    '', ' ', '  a  b  ', '\t\na\x0b\x0cb\r\n', '\x1ca\x1d\x1e\x1fb\x1f', '\x85a\xa0b\u3000', '\u2028a\u2029',
    '\ufeffa\ufeff', 'a\u200bb', '\u1680a\u2000\u200a b\u202f\u205f', 'no-whitespace', 'x\x00y', ' \U0001F600 a ',
]

STRIP_CHARS = [['\n\nab\n\n', '\n'], ['xxhixx', 'x'], ['<a>', '<>'], ['abc', ''], ['\n\n', '\n'], ['ab\nc\n', '\n']]

SLICES = [['hello', 1, 3], ['\U0001F600ab\U0001F601c', 1, 4], ['caf\u00e9 \U0001F600', 3, 100], ['\u6771\u4eac', 0, 1], ['', 0, 2]]

INTS = [
    '0', '17', ' 17 ', '+5', '-05', '1_000', '\u0663', '\U0001D7D9', '\u0968\u0969', '\x852\u3000', '\t-3\n',
    '\x1c5', '5\x1f', '1__0', '_1', '1_', '', ' ', '2.0', '0x10', '\ufeff2', '\u00b2', '12345678901234567890', '+', '- 1',
]

REPLACE = [['aXbXc', 'X', '-'], ['abc', '', '-'], ['', '', 'x'], ['aaa', 'aa', 'b'], ['\U0001F600b', '', '.'], ['$A$ and $A$', '$A$', 'v']]

ZFILL = [['42', 5], ['-42', 5], ['+7', 3], ['abc', 2], ['\U0001F600', 3], ['', 2]]

FORMAT = [
    ['{}-{}', ['a', 1]],
    ['{0}{1}{0}', ['x', 'y']],
    ['{1} then {0}', [2, 'first']],
    ['{name} is {age}', {'name': 'Ann', 'age': 30}],
    ['{{literal}} {x}', {'x': 'v'}],
    ['{{}}', []],
    ['}}{{', []],
    ['{x!r} {x!s} {x!a}', {'x': 'caf\u00e9'}],
    ['{x}|{y}|{z}|{w}', {'x': None, 'y': True, 'z': [1, 'a', None], 'w': {'k': 0.5}}],
    ['{x}', {'x': 0.1}],
    ['{v!r}', {'v': ["it's", {'a': [1, 2]}]}],
    ['{{\n  "a": "{x}"\n}}', {'x': 'v{y}'}],
    ['{missing}', {}],
    ['{}', []],
    ['{0}', {}],
    ['{} {1}', ['a', 'b']],
    ['{0} {}', ['a', 'b']],
    ['a } b', {}],
    ['a { b', {}],
    ['{x!z}', {'x': 1}],
]

JSON_VALUES = [
    'null', 'true', '0', '-0', '10', '10.0', '1e3', '-0.0', '1E-7', '123456789012345678901234567890', '0.1',
    '"plain"', '"caf\u00e9"', '"tab\\tnew\\nline\\r"', '"quote\' and \\""', '"only \'single\'"', '"ctrl \\u0001\\u001f\\u007f"',
    '"\\u0085\\u00a0\\u00ad\\u200b\\u3000\\u2028"', '"emoji \\ud83d\\ude00"', '"lone \\ud800 surrogate"', '"\\\\back\\\\slash"',
    '[1, 2.5, "x", null, [true, false], {}]', '{"b": 1, "a": [1, {"c": 2}], "10": "ten", "2": "two"}',
    '{"dup": 1, "other": 2, "dup": 3}', '[NaN, Infinity, -Infinity]', '{"nested": {"deep": [[], [[]], {"k": {}}]}}',
    '{"\\u00e9": "\\u00fc", "z": "\\ud83d\\ude00"}',
]

JSON_ERRORS = [
    '', '   ', '[1, 2', '[1, 2,]', '{"a" 1}', '{"a": 1,}', "{'a': 1}", '01', '[1] x', '"unterminated', '"bad \\q escape"',
    '"ctrl \x01 char"', '{"a": 1}\n{"b": 2}', '[\n  1,\n  2\n  3\n]', '\ufeff[1]', 'tru', '{"a": [1, 2}', '"\\u12"', '-',
]

DUMPS = [
    ['{"b": 1, "a": [1, 2.5, "x"]}', {}],
    ['{"b": 1, "a": [1, 2.5, "x"]}', {'indent': 2}],
    ['{"b": 1, "a": [1, 2.5, "x"], "e": [], "o": {}}', {'indent': 4}],
    ['{"b": 1, "a": [1, 2.5]}', {'indent': 0}],
    ['{"b": 1, "a": [1, 2.5]}', {'indent': '\t'}],
    ['{"b": 1, "a": [1, 2.5]}', {'separators': [',', ':']}],
    ['{"b": 1, "a": [1, 2.5]}', {'indent': 2, 'separators': [',', ': ']}],
    ['{"b": 1, "a": {"d": 1, "c": 2}, "B": 0, "\\u00e9": 1, "\\ud83d\\ude00": 2, "\\uffff": 3}', {'sort_keys': True}],
    ['["caf\\u00e9", "\\ud83d\\ude00", "\\u007f", "\\u0000\\u001f", "\\ud800", "\\"\\\\\\/"]', {}],
    ['["caf\\u00e9", "\\ud83d\\ude00", "\\u007f", "\\u0000\\u001f", "\\"\\\\\\/"]', {'ensure_ascii': False}],
    ['[1e-05, 1e16, 1e+22, 0.1, -0.0, 100.0, 123456789012345678901234567890]', {}],
    ['[NaN, Infinity, -Infinity]', {}],
    ['{"k": [1, {"x": null}]}', {'indent': 2, 'ensure_ascii': False, 'sort_keys': True}],
]

LITERALS = [
    '1', '-1', '+1', '- 3', '1.5', '-2.5e-3', '1_000', '0x1F', '0o17', '0b101', "'a'", '"b"', "'it\\'s'", "'\\n\\t\\x41\\u00e9\\U0001F600\\101'",
    "r'\\n raw'", "'con' 'cat'", 'None', 'True', 'False', '[1, -2, [3, [4]]]', '(1,)', '()', '(1, (2, (3, -4)), "x")',
    "{'a': 1, 'b': [2, 3], 1: 'one'}", '{1}', '{}', '{1: {2: {3: ()}}}', "[None, True, 'x', (1, 2)]", '1, 2',
    "  {'k': -0.5}  ", "{'a': 1, 'a': 2}", "{1: 'int', True: 'bool'}", "'''triple\nquoted'''", '[\n 1,  # comment\n 2\n]',
    'foo', '[1, 2', "{'a': [1]}[0]", '1 + 2', '{[1]: 2}', 'true',
]

SEEDS = [
    {'int': '0'}, {'int': '42'}, {'int': '2102'}, {'int': '-7'}, {'int': str(2 ** 32)}, {'int': str(2 ** 64 + 5)},
    {'int': str(10 ** 30 + 12345)}, {'str': 'hello'}, {'str': ''}, {'str': 'caf\u00e9 \U0001F600'},
]


def float_of(s):
    return float(s)


def seed_value(seed):
    return int(seed['int']) if 'int' in seed else seed['str']


def random_case(seed):
    r = random.Random(seed_value(seed))
    out = {'getrandbits32': [r.getrandbits(32) for _ in range(5)]}
    out['random'] = [repr(r.random()) for _ in range(3)]
    out['getrandbits64'] = str(r.getrandbits(64))
    out['choice'] = [r.choice(range(10)) for _ in range(5)]
    out['randint'] = [r.randint(1, 6) for _ in range(5)]
    out['sample_pool'] = r.sample(range(50), 6)
    out['sample_pool_large_k'] = r.sample(range(100), 30)
    out['sample_set'] = r.sample(range(1000), 3)
    letters = list('abcdefghij')
    r.shuffle(letters)
    out['shuffle'] = letters
    return {'seed': seed, 'out': out}


def literal_case(text):
    return {'in': text, 'out': error_of(lambda: repr(ast.literal_eval(text)))}


def json_dumps_case(text, opts):
    kw = dict(opts)
    if 'separators' in kw:
        kw['separators'] = tuple(kw['separators'])
    return {'in': text, 'options': opts, 'out': json.dumps(json.loads(text), **kw)}


def json_error_case(text):
    try:
        return {'in': text, 'out': {'value': repr(json.loads(text))}}
    except json.JSONDecodeError as e:
        return {'in': text, 'out': {'error': 'JSONDecodeError', 'msg': e.msg, 'pos': e.pos, 'lineno': e.lineno, 'colno': e.colno}}


cases = {
    'python': platform.python_version(),
    'unicode': __import__('unicodedata').unidata_version,
    'float_repr': [{'in': s, 'out': repr(float_of(s))} for s in FLOATS],
    'round': [{'in': [x, n], 'out': repr(round(float_of(x), n))} for x, n in ROUND],
    'mean': [{'in': xs, 'out': repr(statistics.mean([float_of(x) for x in xs]))} for xs in MEANS],
    'isspace': ranges(str.isspace),
    'isdigit': ranges(str.isdigit),
    'str_methods': [
        {'in': s, 'strip': s.strip(), 'rstrip': s.rstrip(), 'split': s.split(), 'isspace': s.isspace(), 'len': len(s)}
        for s in STRINGS
    ],
    'strip_chars': [{'in': [s, c], 'out': s.strip(c)} for s, c in STRIP_CHARS],
    'slice': [{'in': [s, a, b], 'out': s[a:b], 'len': len(s)} for s, a, b in SLICES],
    'int': [{'in': s, 'out': error_of(lambda s=s: str(int(s)))} for s in INTS],
    'replace': [{'in': [s, a, b], 'out': s.replace(a, b)} for s, a, b in REPLACE],
    'zfill': [{'in': [s, w], 'out': s.zfill(w)} for s, w in ZFILL],
    'format': [
        {'in': [t, a], 'out': error_of(lambda t=t, a=a: t.format(*a) if isinstance(a, list) else t.format(**a))}
        for t, a in FORMAT
    ],
    'repr': [{'in': t, 'repr': repr(json.loads(t)), 'str': str(json.loads(t))} for t in JSON_VALUES],
    'json_loads': [json_error_case(t) for t in JSON_VALUES + JSON_ERRORS],
    'json_dumps': [json_dumps_case(t, o) for t, o in DUMPS],
    'literal_eval': [literal_case(t) for t in LITERALS],
    'random': [random_case(s) for s in SEEDS],
}

with open(OUT, 'w', encoding='ascii', newline='\n') as f:
    json.dump(cases, f, indent=1, ensure_ascii=True)
    f.write('\n')
print(f'wrote {os.path.relpath(OUT)} (CPython {cases["python"]}, Unicode {cases["unicode"]})', file=sys.stderr)
