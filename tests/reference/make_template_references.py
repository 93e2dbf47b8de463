#!/usr/bin/env python3
"""Render chat templates with transformers' own renderer and record the results.

Every case names a model template from tests/data/templates/<name>.json (the chat_template string
and the special tokens exactly as in that model's tokenizer_config.json) or carries a small inline
template that pins one Jinja feature down. Each is rendered the way apply_chat_template renders it
and written to expected.json: the exact output, or the text of the exception the template raised.
tests/engine/test_chat_template.cpp renders every case with Hearth's interpreter and requires
byte-identical output (or an error containing the recorded message / `error_substring`).

Renderers, best first (the one used is recorded in expected.json's "generator"):
  1. apply_chat_template of a real transformers tokenizer (a tiny WordLevel tokenizer carrying the
     case's bos/eos tokens; the chat template is passed explicitly), with strftime_now pinned;
  2. transformers.utils.chat_template_utils.render_jinja_template;
  3. only with --allow-jinja-replica: plain jinja2 set up as transformers does (ImmutableSandbox,
     trim_blocks, lstrip_blocks, loopcontrols, its tojson/raise_exception/strftime_now) - a local
     dry run where transformers is not installed. Never commit output made this way.
When more than one is available they are cross-checked and any disagreement is reported.

Usage:  PYTHONUNBUFFERED=1 python3 tests/reference/make_template_references.py OUT.json
"""
import datetime as dt
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATES = os.path.join(HERE, "..", "data", "templates")
NOW = dt.datetime(2025, 3, 14, 9, 26, 53)  # strftime_now's clock in every case

# ---- conversations -------------------------------------------------------------------------------

SYS = {"role": "system", "content": "You are a helpful assistant."}
SYS_USER = [SYS, {"role": "user", "content": "Hello! Who are you?"}]
USER_ONLY = [{"role": "user", "content": "What is 2+2?"}]
MULTI_TURN = [
    SYS,
    {"role": "user", "content": "Hello"},
    {"role": "assistant", "content": "Hi there"},
    {"role": "user", "content": "Who are you"},
    {"role": "assistant", "content": "   I am an assistant   "},
    {"role": "user", "content": "Another question"},
]
MULTI_TURN_NO_SYS = MULTI_TURN[1:]
ENDS_WITH_ASSISTANT = MULTI_TURN[:5]
UNICODE = [
    {"role": "system", "content": "Réponds en français. 日本語もOK. Emoji: 👋🏽 🇫🇷"},
    {"role": "user", "content": "Tab\there, newline\nthere, \"quotes\", back\\slash, <|im_end|> and </s> typed by a user, ZWJ 👨‍👩‍👧, ß, İ."},
    {"role": "assistant", "content": "Ça va ! 你好。\u00a0Non-breaking space, \u200b zero width."},
    {"role": "user", "content": "  leading and trailing spaces  \n"},
]
THINKING = [
    {"role": "user", "content": "What is 17 * 3?"},
    {"role": "assistant", "content": "<think>\n17 * 3 = 51.\n</think>\n\n17 × 3 = 51."},
    {"role": "user", "content": "And 51 / 3?"},
]
THINKING_LAST = THINKING + [
    {"role": "assistant", "content": "<think>\nReverse of the first.\n</think>\n\n51 / 3 = 17."},
]
REASONING_FIELD = [
    {"role": "user", "content": "Say hi."},
    {"role": "assistant", "content": "Hi!", "reasoning_content": "The user wants a greeting."},
    {"role": "user", "content": "Again."},
    {"role": "assistant", "content": "Hi again!", "reasoning_content": "Same as before."},
]

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather in a given location — température incluse",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The city and country, e.g. Paris, France"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {"type": "integer", "minimum": 1, "maximum": 7.5},
            },
            "required": ["location"],
        },
    },
}
SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search",
        "description": "Search the web.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        "return": {"type": "string"},
    },
}
TOOLS = [WEATHER_TOOL, SEARCH_TOOL]

def tool_call(name, arguments, call_id=None):
    call = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if call_id is not None:
        call["id"] = call_id
    return call

TOOL_CONVERSATION = [
    {"role": "system", "content": "You are a weather bot."},
    {"role": "user", "content": "What's the weather in Paris?"},
    {"role": "assistant", "content": "", "tool_calls": [tool_call("get_current_weather", {"location": "Paris, France", "unit": "celsius"}, "call12345")]},
    {"role": "tool", "content": "{\"temperature\": 21.5, \"sky\": \"clear\"}", "tool_call_id": "call12345"},
    {"role": "assistant", "content": "It is 21.5 °C and clear in Paris."},
    {"role": "user", "content": "Thanks!"},
]
QWEN_PARALLEL_TOOLS = [
    {"role": "user", "content": "Weather in Paris and Tokyo?"},
    {"role": "assistant", "content": "<think>\nTwo calls.\n</think>\n\nLet me check.", "tool_calls": [
        tool_call("get_current_weather", {"location": "Paris"}),
        tool_call("get_current_weather", "{\"location\": \"Tokyo\"}"),
    ]},
    {"role": "tool", "content": "18 degrees"},
    {"role": "tool", "content": "25 degrees"},
    {"role": "user", "content": "<tool_response>\nnot really a user turn\n</tool_response>"},
]
# Qwen3.5's XML tool calls: arguments rendered one parameter each (objects and lists as JSON).
QWEN35_TOOLS = [
    {"role": "system", "content": "You are a weather bot."},
    {"role": "user", "content": "Weather in Paris and Tokyo for two days?"},
    {"role": "assistant", "content": "<think>\nTwo calls.\n</think>\n\nLet me check.", "tool_calls": [
        tool_call("get_current_weather", {"location": "Paris, France", "days": 2, "unit": "celsius"}),
        tool_call("get_current_weather", {"location": "Tokyo", "options": {"hourly": True}, "fields": ["sky", "rain"]}),
    ]},
    {"role": "tool", "content": "18 degrees"},
    {"role": "tool", "content": "25 degrees"},
    {"role": "assistant", "content": "Paris 18 °C, Tokyo 25 °C."},
    {"role": "user", "content": "Thanks!"},
]
QWEN35_CALL_ONLY = [
    {"role": "user", "content": "Search for llamas."},
    {"role": "assistant", "content": "", "tool_calls": [tool_call("search", {"query": "llamas"})]},
    {"role": "tool", "content": "Llamas are camelids."},
]
QWEN35_PARTS = [
    {"role": "system", "content": [{"type": "text", "text": "Describe images briefly."}]},
    {"role": "user", "content": [{"type": "text", "text": "What is this? "}, {"type": "image"},
                                 {"type": "text", "text": " And this:"}, {"type": "video"}]},
]
QWEN35_SYSTEM_IMAGE = [
    {"role": "system", "content": [{"type": "image"}]},
    {"role": "user", "content": "Hi"},
]
LLAMA_TOOL_DICT_RESULT = [
    {"role": "user", "content": "Weather in Oslo?"},
    {"role": "assistant", "tool_calls": [tool_call("get_current_weather", {"location": "Oslo"})]},
    {"role": "tool", "content": {"temperature": -3, "unit": "celsius"}},
]
LLAMA_BUILTIN = [
    {"role": "user", "content": "Search for the capital of Norway."},
    {"role": "assistant", "tool_calls": [tool_call("brave_search", {"query": "capital of Norway"})]},
    {"role": "ipython", "content": "Oslo"},
]
LLAMA_TWO_CALLS = [
    {"role": "user", "content": "x"},
    {"role": "assistant", "tool_calls": [tool_call("search", {"query": "a"}), tool_call("search", {"query": "b"})]},
]
NEMO_BAD_ID = [
    {"role": "user", "content": "x"},
    {"role": "assistant", "tool_calls": [tool_call("search", {"query": "a"}, "short")]},
]
EMPTY_CONTENT = [{"role": "user", "content": ""}, {"role": "assistant", "content": ""}, {"role": "user", "content": "ok"}]
NOT_ALTERNATING = [{"role": "user", "content": "one"}, {"role": "user", "content": "two"}]
SYSTEM_ONLY = [SYS]


def case(name, template, messages, add_generation_prompt=True, tools=None, extra=None, error_substring=None,
         source=None, bos=None, eos=None):
    c = {"name": name, "template": template, "messages": messages,
         "options": {"add_generation_prompt": add_generation_prompt, "tools": tools, "extra": extra or {},
                     "now": NOW.isoformat()}}
    if source is not None:
        c["source"] = source
        c["options"]["bos_token"] = bos
        c["options"]["eos_token"] = eos
    if error_substring:
        c["error_substring"] = error_substring
    return c


def model_cases():
    cases = []
    for t in ["qwen3", "qwen3.5", "qwen2.5", "llama3.1", "llama2-chat", "mistral-instruct", "mistral-nemo"]:
        cases += [
            case(f"{t}/sys_user", t, SYS_USER),
            case(f"{t}/user_only", t, USER_ONLY),
            case(f"{t}/user_only_no_prompt", t, USER_ONLY, add_generation_prompt=False),
            case(f"{t}/multi_turn", t, MULTI_TURN),
            case(f"{t}/multi_turn_no_sys", t, MULTI_TURN_NO_SYS),
            case(f"{t}/ends_with_assistant", t, ENDS_WITH_ASSISTANT, add_generation_prompt=False),
            case(f"{t}/unicode", t, UNICODE),
            case(f"{t}/not_alternating", t, NOT_ALTERNATING),
            case(f"{t}/system_only", t, SYSTEM_ONLY),
            case(f"{t}/empty_content", t, EMPTY_CONTENT),
        ]
    for flag in [None, True, False]:
        extra = {} if flag is None else {"enable_thinking": flag}
        suffix = "unset" if flag is None else str(flag).lower()
        for t in ["qwen3", "qwen3.5"]:
            cases += [
                case(f"{t}/thinking_{suffix}", t, THINKING, extra=extra),
                case(f"{t}/thinking_last_{suffix}", t, THINKING_LAST, add_generation_prompt=False, extra=extra),
                case(f"{t}/sys_user_thinking_{suffix}", t, SYS_USER, extra=extra),
            ]
    cases += [
        case("qwen3/reasoning_field", "qwen3", REASONING_FIELD),
        case("qwen3/tools", "qwen3", TOOL_CONVERSATION, tools=TOOLS),
        case("qwen3/tools_no_system", "qwen3", USER_ONLY, tools=TOOLS),
        case("qwen3/parallel_tools", "qwen3", QWEN_PARALLEL_TOOLS, tools=[WEATHER_TOOL], extra={"enable_thinking": False}),
        case("qwen3.5/reasoning_field", "qwen3.5", REASONING_FIELD),
        case("qwen3.5/tools", "qwen3.5", TOOL_CONVERSATION, tools=TOOLS),
        case("qwen3.5/tools_no_system", "qwen3.5", USER_ONLY, tools=TOOLS),
        case("qwen3.5/parallel_tools", "qwen3.5", QWEN35_TOOLS, tools=[WEATHER_TOOL]),
        case("qwen3.5/parallel_tools_no_think", "qwen3.5", QWEN35_TOOLS, tools=[WEATHER_TOOL], extra={"enable_thinking": False}),
        case("qwen3.5/call_only", "qwen3.5", QWEN35_CALL_ONLY, tools=[SEARCH_TOOL]),
        case("qwen3.5/content_parts", "qwen3.5", QWEN35_PARTS),
        case("qwen3.5/content_parts_vision_ids", "qwen3.5", QWEN35_PARTS, extra={"add_vision_id": True}),
        case("qwen3.5/system_image", "qwen3.5", QWEN35_SYSTEM_IMAGE),
        case("qwen2.5/tools", "qwen2.5", TOOL_CONVERSATION, tools=TOOLS),
        case("qwen2.5/tools_no_system", "qwen2.5", USER_ONLY, tools=TOOLS),
        case("qwen2.5/parallel_tools", "qwen2.5", QWEN_PARALLEL_TOOLS, tools=[WEATHER_TOOL]),
        case("llama3.1/tools", "llama3.1", TOOL_CONVERSATION[:4], tools=TOOLS),
        case("llama3.1/tools_in_system", "llama3.1", TOOL_CONVERSATION[:4], tools=TOOLS,
             extra={"tools_in_user_message": False, "date_string": "01 Jan 2025"}),
        case("llama3.1/tool_dict_result", "llama3.1", LLAMA_TOOL_DICT_RESULT, tools=[WEATHER_TOOL]),
        case("llama3.1/builtin_tools", "llama3.1", LLAMA_BUILTIN,
             extra={"builtin_tools": ["brave_search", "code_interpreter", "wolfram_alpha"]}),
        case("llama3.1/custom_tools", "llama3.1", USER_ONLY, extra={"custom_tools": [SEARCH_TOOL]}),
        case("llama3.1/tools_without_user", "llama3.1", SYSTEM_ONLY, tools=TOOLS),
        case("llama3.1/two_tool_calls", "llama3.1", LLAMA_TWO_CALLS, tools=TOOLS),
        case("mistral-nemo/tools", "mistral-nemo", TOOL_CONVERSATION[1:], tools=TOOLS),
        case("mistral-nemo/bad_tool_call_id", "mistral-nemo", NEMO_BAD_ID, tools=TOOLS),
    ]
    return cases


# ---- inline feature templates ----------------------------------------------------------------------

DATA = {"b": [1, 2.5, None, True, False, -0.0, 1e20, 1e-7, 0.1, 123456789.125],
        "a": {"é": "ünïcödé ✓", "ctl": "\u0001\u001f\u007f", "q": "\"'\\/"}, "empty": [], "emptyd": {}}
FEATURES = {
    "print_values": "{{ none }}|{{ true }}|{{ 1.0 }}|{{ 10/4 }}|{{ 4/2 }}|{{ 1e16 }}|{{ 1e15 }}|{{ 0.0001 }}|{{ 0.00001 }}|"
                    "{{ [1, 'a', none, true, 1.5] }}|{{ {'k': \"it's\", 'n': none} }}|{{ 'x' ~ 1 ~ 2.0 ~ none }}",
    "tojson_default": "{{ data | tojson }}",
    "tojson_indent": "{{ data | tojson(indent=2) }}\n{{ data.empty | tojson(indent=4) }}{{ data.emptyd | tojson(indent=1) }}",
    "tojson_options": "{{ data.a | tojson(ensure_ascii=True) }}|{{ data | tojson(sort_keys=True) }}|"
                      "{{ data.b | tojson(separators=(',', ':')) }}|{{ 'tab\there' | tojson }}",
    "arithmetic": "{{ 7 // 2 }} {{ -7 // 2 }} {{ -7 % 3 }} {{ 7 % -3 }} {{ 2 ** 10 }} {{ 2 ** -1 }} {{ 7.5 // 2 }} "
                  "{{ 1 + 2 * 3 - 4 / 2 }} {{ (1 + 2) * 3 }} {{ -3 | abs }} {{ 'ab' * 3 }} {{ 2 * 'x' }} {{ [1] + [2, 3] }} "
                  "{{ 1 < 2 < 3 }} {{ 3 > 2 > 2 }} {{ 'a' in 'cat' }} {{ 2 not in [1, 3] }} {{ 'k' in {'k': 1} }} {{ 1 == 1.0 }}",
    "strings": "{{ '  x y  '.strip() }}|{{ 'xxhixx'.strip('x') }}|{{ '  a'.lstrip() }}|{{ 'a  '.rstrip() }}|"
               "{{ 'a,b,,c'.split(',') }}|{{ ' a  b \n c '.split() }}|{{ 'a b c'.split(' ', 1) }}|{{ 'a b c'.rsplit(' ', 1) }}|"
               "{{ 'hello world'.title() }}|{{ 'hELLO'.capitalize() }}|{{ 'Ab'.upper() }}{{ 'Ab'.lower() }}|"
               "{{ 'aaa'.replace('a', 'b', 2) }}|{{ 'abc'.find('c') }}|{{ 'abc'.startswith(('x', 'a')) }}|"
               "{{ 'abc'.endswith('bc') }}|{{ '{} and {name}'.format(1, name='two') }}|{{ '%s=%d' % ('x', 3) }}|"
               "{{ 'l1\nl2'.splitlines() }}|{{ 'ÉCOLE'.lower() }}|{{ 'straße'.upper() }}|{{ '-'.join(['a', 'b']) }}",
    "slicing": "{{ 'héllo'[::-1] }}|{{ 'héllo'[1:3] }}|{{ 'héllo'[-2:] }}|{{ 'héllo'[0] }}|{{ 'héllo'[-1] }}|"
               "{{ [1,2,3,4,5][::2] }}|{{ [1,2,3,4,5][1:-1] }}|{{ [1,2,3][5:] }}|{{ [1,2,3][::-1] }}|{{ 'héllo'|length }}|"
               "{{ messages[-1].content }}|{{ messages[0]['role'] }}|{{ range(5)[1:3] | list }}",
    "loops": "{% for m in messages %}{{ loop.index }}/{{ loop.index0 }}/{{ loop.revindex }}/{{ loop.revindex0 }}/"
             "{{ loop.first }}/{{ loop.last }}/{{ loop.length }}/{{ loop.cycle('odd', 'even') }}/"
             "{{ loop.previtem.role if loop.previtem is defined else '-' }}/{{ loop.nextitem.role if not loop.last }} {% endfor %}"
             "|{% for x in [1, 2, 3, 4] if x > 1 %}{{ x }}:{{ loop.length }}{% if loop.last %}!{% endif %} {% endfor %}"
             "|{% for x in [] %}never{% else %}empty{% endfor %}|{% for k, v in {'a': 1, 'b': 2}.items() %}{{ k }}={{ v }};{% endfor %}"
             "|{% for x in range(10) %}{% if x == 2 %}{% continue %}{% endif %}{% if x == 5 %}{% break %}{% endif %}{{ x }}{% endfor %}"
             "|{% for c in 'ab' %}{{ c }}{% endfor %}|{% for k in {'z': 1, 'y': 2} %}{{ k }}{% endfor %}",
    "scoping": "{% set x = 1 %}{% for i in [1, 2] %}{{ x }}{% set x = i * 10 %}{{ x }} {% endfor %}{{ x }}|"
               "{% if true %}{% set y = 5 %}{% endif %}{{ y }}|"
               "{% set ns = namespace(total=0, seen=[]) %}{% for i in range(4) %}{% set ns.total = ns.total + i %}"
               "{% set ns.seen = ns.seen + [i] %}{% endfor %}{{ ns.total }} {{ ns.seen }}|"
               "{% set a, b = [1, 2] %}{{ a }}{{ b }}|{% set block %}inner {{ a }}{% endset %}[{{ block }}]",
    "macros": "{% macro greet(name, greeting='Hello', punct='!') %}{{ greeting }}, {{ name }}{{ punct }}{% endmacro %}"
              "{{ greet('Ann') }}|{{ greet('Bob', 'Hi') }}|{{ greet('Cy', punct='?') }}|"
              "{% macro count(n) %}{% if n > 0 %}{{ n }}{{ count(n - 1) }}{% endif %}{% endmacro %}{{ count(5) }}|"
              "{% macro va() %}{{ varargs | length }}{{ varargs[1] }}{{ kwargs }}{% endmacro %}{{ va(1, 2, k='v') }}",
    "filters": "{{ messages | selectattr('role', 'equalto', 'user') | map(attribute='content') | join(', ') }}|"
               "{{ messages | rejectattr('role', 'equalto', 'user') | list | length }}|"
               "{{ messages | selectattr('name', 'defined') | list | length }}|{{ messages | selectattr('name', 'undefined') | list | length }}|"
               "{{ [3, 1, 2] | sort }}|{{ ['b', 'A', 'c'] | sort }}|{{ [3, 1, 2] | sort(reverse=true) }}|"
               "{{ messages | sort(attribute='role') | map(attribute='role') | list }}|{{ [1, 2, 2, 3, 1] | unique | list }}|"
               "{% for k, v in {'b': 2, 'a': 1} | dictsort %}{{ k }}{{ v }}{% endfor %}|{% for k, v in {'b': 2, 'a': 1} | items %}{{ k }}{{ v }}{% endfor %}|{{ [1, 2, 3] | sum }}|"
               "{{ [4, 2, 8] | min }}{{ [4, 2, 8] | max }}|{{ [1, 2] | first }}{{ [1, 2] | last }}|{{ 'abc' | list }}|"
               "{{ '42' | int + 1 }}|{{ '3.7' | int }}|{{ 'x' | int(7) }}|{{ '2.5' | float }}|{{ 3 | float }}|{{ 2.567 | round(2) }}|"
               "{{ 2.5 | round }}|{{ 3.5 | round }}|{{ 2.1 | round(0, 'ceil') }}|{{ '' | default('d') }}|{{ '' | default('d', true) }}|"
               "{{ nothing | default('dflt') }}|{{ nothing | d('x') }}|{{ ' Hi ' | trim }}|{{ 'xhix' | trim('x') }}|{{ 'hello world' | title }}|"
               "{{ 'hello' | capitalize }}|{{ 'Hi' | upper }}{{ 'Hi' | lower }}|{{ 'a-b-c' | replace('-', '+') }}|"
               "{{ 'one two  three' | wordcount }}|[{{ 'ab' | center(7) }}]|{{ 'a\nb\n\nc' | indent(2) }}|{{ 'a\nb' | indent(2, true) }}|"
               "{{ '<a & \"b\">' | escape }}|{{ 42 | string }}{{ none | string }}|{{ [1, 2] | map('string') | join('+') }}|"
               "{{ [0, 1, 2, ''] | select | list }}|{{ [1, 2, 3, 4] | reject('odd') | list }}|{{ {'a': 1} | attr('a') }}|"
               "{{ [1, 2, 3] | reverse | list }}{{ 'abc' | reverse }}|{{ [1, 'a'] | join }}|{{ '%s-%s' | format('a', 1) }}",
    "tests": "{{ x is defined }}{{ nothing is defined }}{{ nothing is undefined }}{{ none is none }}{{ 'a' is string }}"
             "{{ {} is mapping }}{{ [] is iterable }}{{ 'a' is iterable }}{{ 1 is number }}{{ 1 is integer }}{{ 1.0 is float }}"
             "{{ 'a' is sequence }}{{ true is boolean }}{{ true is true }}{{ false is false }}{{ 0 is false }}{{ 4 is divisibleby 2 }}"
             "{{ 3 is odd }}{{ 3 is even }}{{ 2 is in [1, 2] }}{{ none is sameas none }}{{ 'ab' is lower }}{{ 'AB' is upper }}"
             "{{ 2 is eq 2 }}{{ 1 is lt 2 }}{{ 3 is ge 3 }}{{ nothing is iterable }}{{ 1 is not string }}{{ 1 is number and 1 is not boolean }}",
    "whitespace": "a\n  {% if true %}\n  b\n  {% endif %}\nc\n  {#- comment #}  d {#+ kept #}\n"
                  "{%- for i in [1, 2] -%}\n  [{{ i }}]\n{%- endfor %}\n  {%+ if true %}plus{% endif +%}\n"
                  "{% raw %}{{ not rendered }} {% if %}{% endraw %}\n"
                  "  {{- ' tight ' -}}  \n{{ 'x' }}  {{ 'y' }}\n\n  {% set z = 1 %}\ttabbed\n",
    "trailing_newline": "line\n",
    "crlf": "a\r\nb\r\n{% if true %}\r\nc{% endif %}\r\n",
    "strftime": "{{ strftime_now('%Y-%m-%d %H:%M:%S %A %a %B %b %d %j') }}|{{ strftime_now('%d %b %Y') }}",
    "undefined_soft": "[{{ nothing }}][{{ nothing | length }}][{% for x in nothing %}{{ x }}{% else %}none{% endfor %}]"
                      "[{{ messages[0].nope }}][{{ messages[0]['nope'] }}][{{ messages[99] }}][{{ 'x' if false }}]"
                      "[{{ nothing ~ 'z' }}][{{ nothing == none }}][{{ not nothing }}][{{ nothing is iterable }}]",
    "conditions": "{% if 0 %}a{% elif '' %}b{% elif [] %}c{% elif {} %}d{% elif none %}e{% else %}f{% endif %}"
                  "{{ 'y' if messages else 'n' }}{{ 1 and 'x' }}{{ 0 or 'z' }}{{ none or false }}{{ not 1 }}",
    "generation_tag": "{% for m in messages %}{% if m.role == 'assistant' %}{% generation %}{{ m.content }}{% endgeneration %}"
                      "{% else %}{{ m.content }}{% endif %}|{% endfor %}",
}
FEATURE_ERRORS = {
    "error_undefined_attribute": ("{{ nothing.attr }}", "'nothing' is undefined"),
    "error_undefined_nested": ("{{ messages[0].nope.deeper }}", "'dict object' has no attribute 'nope'"),
    "error_undefined_add": ("{{ nothing + 'x' }}", "'nothing' is undefined"),
    "error_undefined_call": ("{{ nothing() }}", "'nothing' is undefined"),
    "error_raise": ("{% if messages | length > 1 %}{{ raise_exception('Too many messages: ' ~ messages | length) }}{% endif %}",
                    None),
    "error_str_plus_int": ("{{ 'a' + 1 }}", 'can only concatenate str (not "int") to str'),
    "error_range_too_big": ("{% for x in range(10**9) %}{{ x }}{% endfor %}", "Range too big"),
    "error_recursion": ("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "maximum recursion depth exceeded"),
    "error_unsafe_append": ("{% set l = [] %}{{ l.append(1) }}", "unsafe"),
}


def feature_cases():
    cases = []
    for name, source in FEATURES.items():
        messages = MULTI_TURN + [{"role": "user", "content": "last", "name": "bob"}]
        cases.append(case(f"feature/{name}", None, messages, extra={"data": DATA, "x": 1}, source=source,
                          bos="<s>", eos="</s>"))
    for name, (source, substring) in FEATURE_ERRORS.items():
        cases.append(case(f"feature/{name}", None, MULTI_TURN, source=source, error_substring=substring,
                          bos="<s>", eos="</s>"))
    return cases


# ---- renderers -----------------------------------------------------------------------------------------

class FixedDatetime(dt.datetime):
    @classmethod
    def now(cls, tz=None):
        return NOW


def make_renderers(allow_replica):
    renderers = {}
    versions = {"python": sys.version.split()[0]}
    try:
        import jinja2
        versions["jinja2"] = jinja2.__version__
    except ImportError:
        pass
    try:
        import transformers
        from transformers.utils import chat_template_utils as ctu
        versions["transformers"] = transformers.__version__
        ctu.datetime = FixedDatetime  # strftime_now reads datetime.now() from this module

        def pin_clock(source):
            compiled = ctu._compile_jinja_template(source)
            compiled.environment.globals["strftime_now"] = lambda fmt: NOW.strftime(fmt)

        def via_render_jinja_template(source, messages, opts, kwargs):
            pin_clock(source)
            rendered, _ = ctu.render_jinja_template(conversations=[messages], tools=opts["tools"], chat_template=source,
                                                    add_generation_prompt=opts["add_generation_prompt"], **kwargs)
            return rendered[0]
        renderers["render_jinja_template"] = via_render_jinja_template

        try:
            from tokenizers import Tokenizer, models
            from transformers import PreTrainedTokenizerFast

            def via_apply_chat_template(source, messages, opts, kwargs):
                pin_clock(source)
                special = {k: kwargs.pop(k) for k in ("bos_token", "eos_token") if k in kwargs}
                vocab = {"<unk>": 0}
                for tok in special.values():
                    vocab.setdefault(tok, len(vocab))
                tok = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordLevel(vocab, unk_token="<unk>")),
                                              unk_token=None, **special)
                text = tok.apply_chat_template(messages, tools=opts["tools"], chat_template=source, tokenize=False,
                                               add_generation_prompt=opts["add_generation_prompt"], **kwargs)
                if not isinstance(text, str):
                    raise RuntimeError(f"apply_chat_template returned {type(text).__name__}, not str")
                return text
            # Probe: special tokens, an extra keyword and the pinned clock must all reach the template.
            probe = via_apply_chat_template("{{ bos_token }}{{ eos_token }}{{ x }}{{ strftime_now('%Y') }}",
                                            [{"role": "user", "content": "hi"}],
                                            {"tools": None, "add_generation_prompt": False},
                                            {"bos_token": "<s>", "eos_token": "</s>", "x": 1})
            if probe == "<s></s>12025":
                renderers["apply_chat_template"] = via_apply_chat_template
            else:
                print(f"apply_chat_template probe gave {probe!r}: not used", file=sys.stderr)
        except Exception as e:  # keep going with render_jinja_template
            print(f"apply_chat_template path unavailable: {e!r}", file=sys.stderr)
    except ImportError:
        if not allow_replica:
            sys.exit("transformers is not installed (use --allow-jinja-replica for a local dry run)")
    if allow_replica:
        renderers["jinja2-replica"] = make_replica()
    return renderers, versions


def make_replica():
    """Plain jinja2 configured as transformers' _compile_jinja_template does."""
    import jinja2
    import jinja2.ext
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: NOW.strftime(fmt)

    class Generation(jinja2.ext.Extension):  # transformers' {% generation %} tag, rendered as its body
        tags = {"generation"}

        def parse(self, parser):
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
            return jinja2.nodes.Scope(body).set_lineno(lineno)
    env.add_extension(Generation)

    def render(source, messages, opts, kwargs):
        return env.from_string(source).render(messages=messages, tools=opts["tools"], documents=None,
                                              add_generation_prompt=opts["add_generation_prompt"], **kwargs)
    return render


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    allow_replica = "--allow-jinja-replica" in sys.argv
    if len(args) != 1:
        sys.exit(__doc__)
    renderers, versions = make_renderers(allow_replica)
    order = [r for r in ("apply_chat_template", "render_jinja_template", "jinja2-replica") if r in renderers]
    model_templates = {}
    for fname in sorted(os.listdir(TEMPLATES)):
        if fname.endswith(".json") and fname != "expected.json":
            with open(os.path.join(TEMPLATES, fname), encoding="utf-8") as f:
                model_templates[fname[:-5]] = json.load(f)

    records, disagreements = [], []
    for c in model_cases() + feature_cases():
        opts = dict(c["options"])
        if c["template"] is not None:
            cfg = model_templates[c["template"]]
            source = cfg["chat_template"]
            opts["bos_token"], opts["eos_token"] = cfg.get("bos_token"), cfg.get("eos_token")
            c["options"] = opts
        else:
            source = c["source"]
        results = {}
        for name in order:
            kwargs = {k: opts[k] for k in ("bos_token", "eos_token") if opts.get(k) is not None}
            kwargs.update(json.loads(json.dumps(opts["extra"])))
            try:
                results[name] = ("ok", renderers[name](source, json.loads(json.dumps(c["messages"])), opts, kwargs))
            except Exception as e:
                results[name] = ("error", f"{type(e).__name__}: {e}", str(e))
        primary = results[order[0]]
        for name in order[1:]:
            if results[name][:2] != primary[:2]:
                disagreements.append({"case": c["name"], "renderers": [order[0], name]})
        record = {k: v for k, v in c.items() if k != "error_substring"}
        if primary[0] == "ok":
            record["expected"] = primary[1]
        else:
            record["error"] = primary[1]
            record["error_substring"] = c.get("error_substring") or primary[2]
        records.append(record)
        print(f"{c['name']}: {'ok' if primary[0] == 'ok' else primary[1][:100]}")

    out = {"generator": {"script": "tests/reference/make_template_references.py", "renderer": order[0],
                         "cross_checked_with": order[1:], "disagreements": disagreements, "versions": versions,
                         "now": NOW.isoformat()},
           "cases": records}
    with open(args[0], "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{len(records)} cases, renderer {order[0]}, {len(disagreements)} disagreements, versions {versions}")


if __name__ == "__main__":
    main()
