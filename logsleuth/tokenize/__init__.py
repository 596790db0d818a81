"""Raw byte blocks -> typed LogLine records: the only stage that touches Lark.

Two grammars from `grammars/`: `anchors.lark` says which lines can matter (scan.py),
`vllm.lark` says what a line is (grammar.py).
"""

from logsleuth.tokenize.grammar import (START_SYMBOLS, clean, line_parser, parse_line,
                                        parse_line_whole, terminal_regex, tree_of)
from logsleuth.tokenize.scan import (TokenizeStats, Tokenizer, anchor_patterns, parse_every_line,
                                     tokenize, tokenize_runs)

__all__ = ["START_SYMBOLS", "TokenizeStats", "Tokenizer", "anchor_patterns", "clean",
           "line_parser", "parse_every_line", "parse_line", "parse_line_whole", "terminal_regex",
           "tokenize", "tokenize_runs", "tree_of"]
